/**
 * The operations prompts and partials share (one table, one set of version rules): create, list,
 * get, update, delete, versions and makeDefault. handlers/prompts and handlers/prompt-partials
 * bind them to their kind and answer shapes.
 */
import type { Context } from 'openapi-backend';
import { parseAddress } from '../../gateway/prompts/prompt-address.js';
import { selectVersion } from '../../gateway/prompts/prompt-versions.js';
import { actorOf } from '../../core/auth/principal.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { PromptKind, PromptRecord, PromptVersionRecord } from '../../store/repositories/prompts.js';
import { pathId, type Handler, type Reply } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { listWorkspaceFilter } from '../workspace-target.js';
import { assertIncludedPartialsVisible } from '../../gateway/prompts/partial-visibility.js';
import type { Sharing } from './present.js';
import { assertTemplateParses, assertVirtualKeyServes, collectionFor, nextTemplate, placementFor, pickTemplate, publishPrompts, uniqueSlug, visible, writable } from './prompt-rules.js';

export interface LibraryKind {
  kind: PromptKind;
  templateFields: readonly string[];
  present(record: PromptRecord, version: PromptVersionRecord, share: Sharing): Record<string, unknown>;
  presentListItem(record: PromptRecord, version: PromptVersionRecord | undefined, share: Sharing): Record<string, unknown>;
  presentVersion(record: PromptRecord, version: PromptVersionRecord): Record<string, unknown>;
  /** The update answer, from the version the template is now at. */
  presentUpdated(record: PromptRecord, version: PromptVersionRecord, created: boolean): Record<string, unknown>;
}

type Input = Record<string, unknown>;
const input = (c: Context) => (c.request.requestBody ?? {}) as Input;
const queryOf = (c: Context) => c.request.query as Record<string, unknown>;

async function shareOf(call: Call, record: PromptRecord, shared: boolean, show: boolean): Promise<Sharing> {
  return show ? { shared, sharedWith: await call.services.store.prompts.sharedWith(record.id) } : { shared };
}

export function libraryOperations(k: LibraryKind) {
  const noun = k.kind === 'prompt' ? 'Prompt' : 'Prompt partial';

  const create: Handler = async (c, call) => {
    const principal = principalOf(call);
    const body = input(c);
    const { store } = call.services;
    const { workspaceId, collection } = await placementFor(call, body.workspace_id as string | undefined, body.collection_id as string | undefined);
    const template = pickTemplate(body, k.templateFields);
    assertTemplateParses(template);
    await assertVirtualKeyServes(call, principal.organisationId, workspaceId, template);
    await assertIncludedPartialsVisible(store, { organisationId: principal.organisationId, workspaceId }, template);
    const slug = await uniqueSlug(call, k.kind, body.slug as string | undefined, body.name as string);
    const record = await store.transaction((tx) =>
      tx.prompts.create(
        {
          organisation_id: principal.organisationId,
          workspace_id: workspaceId,
          collection_id: collection.id,
          kind: k.kind,
          name: body.name as string,
          slug,
          description: (body.description as string | null | undefined) ?? null,
          created_by: actorOf(principal),
        },
        template,
        (body.version_description as string | null | undefined) ?? null,
        isoNow(call),
      ),
    );
    await publishPrompts(call, record.id);
    return { status: 201, body: k.present(record, (await store.prompts.version(record.id, 1))!, { shared: false }) };
  };

  const list: Handler = async (c, call) => {
    const principal = principalOf(call);
    const q = queryOf(c);
    const { store } = call.services;
    const workspaceId = await listWorkspaceFilter(call, principal, q.workspace_id as string | undefined);
    let collectionId: string | undefined;
    if (q.collection_id !== undefined) {
      const collection = await store.promptCollections.find(principal.organisationId, q.collection_id as string);
      if (!collection) throw new NotFoundError('Collection', q.collection_id as string);
      collectionId = collection.id;
    }
    const page = await store.prompts.list(
      principal.organisationId,
      k.kind,
      { workspace_id: workspaceId, type: (q.type as 'all' | 'own' | 'shared' | undefined) ?? 'all', collection_id: collectionId, search: q.search as string | undefined },
      { limit: q.limit as number | undefined, cursor: q.cursor as string | undefined },
    );
    const versions = await store.prompts.defaultVersionsOf(page.data);
    const shares = q.show_prompt_share === true ? await store.prompts.sharesOf(page.data.map((p) => p.id)) : undefined;
    const data = page.data.map((record) =>
      k.presentListItem(record, versions.get(record.id), {
        shared: workspaceId !== undefined && record.workspace_id !== workspaceId,
        ...(shares ? { sharedWith: shares.get(record.id) } : {}),
      }),
    );
    return { body: { ...page, data } };
  };

  /** `{id}` may be an address: `id@3`, `id@production`, `slug@latest`. */
  const get: Handler = async (c, call) => {
    const address = pathId(c);
    const { idOrSlug, selector } = parseAddress(address);
    const { record, shared } = await visible(call, k.kind, idOrSlug);
    const { version } = await selectVersion(call.services.store, record, selector, address);
    return { body: k.present(record, version, await shareOf(call, record, shared, queryOf(c).show_prompt_share === true)) };
  };

  const update: Handler = async (c, call) => {
    const principal = principalOf(call);
    const body = input(c);
    const { store } = call.services;
    const record = await writable(call, k.kind, pathId(c));
    const latest = (await store.prompts.version(record.id, record.latest_version))!;
    const template = nextTemplate(body, latest.template, k.templateFields);
    if (template) {
      await assertVirtualKeyServes(call, record.organisation_id, record.workspace_id, template);
      await assertIncludedPartialsVisible(store, { organisationId: record.organisation_id, workspaceId: record.workspace_id }, template);
    }
    const changes: Partial<Pick<PromptRecord, 'name' | 'description' | 'collection_id'>> = {};
    if (body.name !== undefined) changes.name = body.name as string;
    if (body.description !== undefined) changes.description = body.description as string | null;
    if (body.collection_id !== undefined) changes.collection_id = (await collectionFor(call, record.workspace_id, body.collection_id as string)).id;
    let version = latest;
    try {
      await store.transaction(async (tx) => {
        if (template) version = await tx.prompts.addVersion(record, template, (body.version_description as string | null | undefined) ?? null, actorOf(principal), isoNow(call));
        if (Object.keys(changes).length) await tx.prompts.update(record.id, changes, isoNow(call));
      });
    } catch (error) {
      // Two updates raced for the same next version number; the loser may simply retry.
      if (template && (await store.prompts.version(record.id, record.latest_version + 1))) throw new ConflictError(`The ${k.kind} changed meanwhile; retry`, 'version_conflict');
      throw error;
    }
    await publishPrompts(call, record.id);
    return { body: k.presentUpdated(record, version, template !== undefined) };
  };

  const remove: Handler = async (c, call) => {
    const record = await writable(call, k.kind, pathId(c));
    const { store } = call.services;
    if ((await store.prompts.sharedWith(record.id)).length) {
      throw new ConflictError(`The ${k.kind} is shared with other workspaces: unshare it first`, `${k.kind}_shared`);
    }
    await store.transaction((tx) => tx.prompts.delete(record.id));
    await publishPrompts(call, record.id);
    return { body: { id: record.id, object: k.kind, deleted: true } };
  };

  const versions: Handler = async (c, call) => {
    const { record } = await visible(call, k.kind, pathId(c));
    const q = queryOf(c);
    const page = await call.services.store.prompts.listVersions(record.id, { limit: q.limit as number | undefined, cursor: q.cursor as string | undefined });
    return { body: { ...page, data: page.data.map((version) => k.presentVersion(record, version)) } };
  };

  const makeDefault: Handler = async (c, call) => {
    const record = await writable(call, k.kind, pathId(c));
    const number = input(c).version as number;
    const { store } = call.services;
    const version = await store.prompts.version(record.id, number);
    if (!version) throw new ValidationError(`${noun} ${record.slug} has no version ${number}`, 'version', 'version_not_found');
    await store.prompts.update(record.id, { default_version: number }, isoNow(call));
    await publishPrompts(call, record.id);
    const updated = (await store.prompts.find(record.organisation_id, k.kind, record.id))!;
    return { body: k.present(updated, version, { shared: false }) } satisfies Reply;
  };

  return { create, list, get, update, remove, versions, makeDefault };
}
