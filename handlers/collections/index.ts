import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { CollectionRecord } from '../../store/repositories/prompt-collections.js';
import { publishPrompts } from '../prompts/prompt-rules.js';
import { body, pathId, query, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { listWorkspaceFilter, slugFromName, targetWorkspaceId } from '../workspace-target.js';
import { randomBytes } from 'node:crypto';

/** A collection the caller may see: any of the organisation's for an admin key, its workspace's for a workspace key. */
async function visibleCollection(call: Call, idOrSlug: string): Promise<CollectionRecord> {
  const principal = principalOf(call);
  const collection = await call.services.store.promptCollections.find(principal.organisationId, idOrSlug);
  if (!collection || (principal.workspaceId !== null && collection.workspace_id !== principal.workspaceId)) throw new NotFoundError('Collection', idOrSlug);
  return collection;
}

function present(collection: CollectionRecord, details?: { child_collections_count: number; prompts_count: number }) {
  return {
    id: collection.id,
    object: 'collection' as const,
    name: collection.name,
    slug: collection.slug,
    workspace_id: collection.workspace_id,
    parent_collection_id: collection.parent_collection_id,
    is_default: collection.is_default,
    status: collection.status,
    ...(details ? { collection_details: details } : {}),
    created_at: collection.created_at,
    last_updated_at: collection.updated_at,
  };
}

export const createCollection: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createCollection'>(c);
  const { store } = call.services;
  const workspaceId = await targetWorkspaceId(call, principal, input.workspace_id);
  await store.promptCollections.ensureDefault(principal.organisationId, workspaceId, isoNow(call));
  let parentId: string | null = null;
  if (input.parent_collection_id !== undefined) {
    const parent = await store.promptCollections.find(principal.organisationId, input.parent_collection_id);
    if (!parent || parent.workspace_id !== workspaceId) {
      throw new ValidationError(`No collection ${input.parent_collection_id} in this workspace`, 'parent_collection_id', 'collection_not_found');
    }
    parentId = parent.id;
  }
  let slug = input.slug ?? slugFromName(input.name);
  if (await store.promptCollections.slugTaken(principal.organisationId, slug)) {
    if (input.slug) throw new ConflictError(`A collection with slug ${slug} exists`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  const created = await store.promptCollections.create({ organisation_id: principal.organisationId, workspace_id: workspaceId, name: input.name, slug, parent_collection_id: parentId }, isoNow(call));
  return { status: 201, body: present(created, { child_collections_count: 0, prompts_count: 0 }) };
};

export const listCollections: Handler = async (c, call) => {
  const principal = principalOf(call);
  const q = query<'listCollections'>(c);
  const { store } = call.services;
  const workspaceId = await listWorkspaceFilter(call, principal, q.workspace_id);
  // Each workspace has its default collection from its first look.
  await store.promptCollections.ensureDefault(principal.organisationId, workspaceId ?? principal.gatewayWorkspaceId, isoNow(call));
  let parent: string | undefined;
  if (q.parent_collection_id !== undefined) parent = (await visibleCollection(call, q.parent_collection_id)).id;
  const page = await store.promptCollections.list(principal.organisationId, { workspace_id: workspaceId, parent_collection_id: parent, search: q.search }, q);
  const counts = await store.promptCollections.counts(page.data.map((item) => item.id));
  return { body: { ...page, data: page.data.map((item) => present(item, counts.get(item.id))) } };
};

export const getCollection: Handler = async (c, call) => {
  const collection = await visibleCollection(call, pathId(c));
  const { store } = call.services;
  const counts = await store.promptCollections.counts([collection.id]);
  const children = await store.promptCollections.children(collection.id);
  return {
    body: {
      ...present(collection, counts.get(collection.id)),
      child_collections: children.map((child) => ({ id: child.id, name: child.name, slug: child.slug, last_updated_at: child.updated_at })),
    },
  };
};

export const updateCollection: Handler = async (c, call) => {
  const collection = await visibleCollection(call, pathId(c));
  await call.services.store.promptCollections.rename(collection.id, body<'updateCollection'>(c).name, isoNow(call));
  return { body: present((await call.services.store.promptCollections.find(collection.organisation_id, collection.id))!) };
};

/** The default collection stays (404, as the hosted API answers); one holding prompts or collections is refused. */
export const deleteCollection: Handler = async (c, call) => {
  const collection = await visibleCollection(call, pathId(c));
  if (collection.is_default) throw new NotFoundError('Collection (the workspace default cannot be deleted)', pathId(c));
  const counts = (await call.services.store.promptCollections.counts([collection.id])).get(collection.id)!;
  if (counts.prompts_count || counts.child_collections_count) {
    throw new ConflictError('The collection holds prompts, partials or collections: move or delete them first', 'collection_not_empty');
  }
  await call.services.store.promptCollections.delete(collection.id);
  await publishPrompts(call, collection.id);
  return { body: { id: collection.id, object: 'collection', deleted: true } };
};
