/**
 * Share, unshare and fork (`/v2/prompts/{id}/...`, `/v2/prompts/partials/{id}/...`). A shared
 * prompt or partial is readable and usable in the workspaces it is shared with and writable only
 * in its own; a fork is an independent copy, with its versions, in another workspace.
 */
import type { Context } from 'openapi-backend';
import { actorOf } from '../../core/auth/principal.js';
import { principalOf, type Call } from '../../core/call.js';
import { ValidationError } from '../../core/errors.js';
import type { PromptKind, PromptRecord } from '../../store/repositories/prompts.js';
import { pathId, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { targetWorkspaceId } from '../workspace-target.js';
import type { LibraryKind } from './library-operations.js';
import { collectionFor, publishPrompts, uniqueSlug, visible, writable } from './prompt-rules.js';

/** Workspace ids or slugs -> ids, each one checked to exist in the organisation. */
async function workspaceIds(call: Call, given: string[], param: string): Promise<string[]> {
  const principal = principalOf(call);
  const ids: string[] = [];
  for (const [i, idOrSlug] of given.entries()) {
    const workspace = await call.services.store.workspaces.find(principal.organisationId, idOrSlug);
    if (!workspace) throw new ValidationError(`No workspace ${idOrSlug}`, `${param}[${i}]`, 'workspace_not_found');
    ids.push(workspace.id);
  }
  return ids;
}

async function shareState(call: Call, record: PromptRecord) {
  return { id: record.id, object: record.kind, shared_with: await call.services.store.prompts.sharedWith(record.id) };
}

async function unshareFrom(c: Context, call: Call, kind: PromptKind, names: string[] | undefined, param: string) {
  const record = await writable(call, kind, pathId(c));
  const ids = names ? await workspaceIds(call, names, param) : undefined;
  await call.services.store.prompts.unshare(record.id, ids);
  await publishPrompts(call, record.id);
  return { body: await shareState(call, record) };
}

export function sharingOperations(k: LibraryKind) {
  const share: Handler = async (c, call) => {
    const record = await writable(call, k.kind, pathId(c));
    const body = c.request.requestBody as { workspace_ids: string[] };
    // Its own workspace sees it anyway.
    const ids = (await workspaceIds(call, body.workspace_ids, 'workspace_ids')).filter((id) => id !== record.workspace_id);
    await call.services.store.prompts.share(record.id, [...new Set(ids)], isoNow(call));
    await publishPrompts(call, record.id);
    return { body: await shareState(call, record) };
  };

  const unshare: Handler = async (c, call) => {
    const body = (c.request.requestBody ?? {}) as { workspace_ids?: string[] };
    return unshareFrom(c, call, k.kind, body.workspace_ids, 'workspace_ids');
  };

  const unshareDelete: Handler = async (c, call) => {
    const workspace = (c.request.query as { workspace_id?: string }).workspace_id;
    return unshareFrom(c, call, k.kind, workspace === undefined ? undefined : [workspace], 'workspace_id');
  };

  const fork: Handler = async (c, call) => {
    const principal = principalOf(call);
    const body = c.request.requestBody as { workspace_id: string; name?: string; slug?: string; collection_id?: string };
    const { record: source } = await visible(call, k.kind, pathId(c));
    const workspaceId = await targetWorkspaceId(call, principal, body.workspace_id);
    if (workspaceId === source.workspace_id) throw new ValidationError(`A fork goes to another workspace than the ${k.kind}'s own`, 'workspace_id', 'same_workspace');
    const collection = await collectionFor(call, workspaceId, body.collection_id);
    const name = body.name ?? source.name;
    const slug = await uniqueSlug(call, k.kind, body.slug, body.slug ?? source.slug);
    const copy = await call.services.store.transaction((tx) =>
      tx.prompts.fork(source, { workspace_id: workspaceId, collection_id: collection.id, name, slug, created_by: actorOf(principal) }, isoNow(call)),
    );
    await publishPrompts(call, copy.id);
    return { status: 201, body: k.present(copy, (await call.services.store.prompts.version(copy.id, copy.default_version))!, { shared: false }) };
  };

  return { share, unshare, unshareDelete, fork };
}
