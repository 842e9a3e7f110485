/**
 * Files a thread brings for file_search: inline `tool_resources.file_search.vector_stores` become
 * vector stores of the workspace (created and ingested now), and message attachments with the
 * file_search tool join the thread's store — made for the thread when it has none, with the
 * embedding model of the thread's metadata `x-gw-embedding-model`.
 */
import type { Services } from '../../core/services.js';
import { chunkingOf } from '../vector-stores/chunking.js';
import { checkedEmbeddingModel } from '../vector-stores/embedding-model.js';
import type { StoredPrincipal } from '../batches/line-call.js';
import type { Owner } from './thread-writer.js';
import type { CreateMessageRequest, ThreadObject, ToolResources } from './wire.js';

type InlineStore = { file_ids?: string[]; chunking_strategy?: Parameters<typeof chunkingOf>[0]; metadata?: Record<string, string> | null };

/** File ids of attachments that ask for code_interpreter: mounted in the thread's runs (code-interpreter.ts). */
export function codeInterpreterAttachments(messages: readonly CreateMessageRequest[]): string[] {
  return messages.flatMap((message) => (message.attachments ?? []).filter((attachment) => attachment.tools?.some((tool) => tool.type === 'code_interpreter')).map((attachment) => attachment.file_id!));
}

/** File ids of attachments that ask for file_search. */
export function fileSearchAttachments(messages: readonly CreateMessageRequest[]): string[] {
  return messages.flatMap((message) => (message.attachments ?? []).filter((attachment) => attachment.tools?.some((tool) => tool.type === 'file_search')).map((attachment) => attachment.file_id!));
}

/**
 * The thread's (or assistant's) tool_resources with its stores made: inline stores created,
 * attachment files attached. Every file and store named is checked (404: another workspace's is
 * not found here) before anything is written.
 */
export async function threadStores(
  services: Services,
  owner: Owner,
  principal: StoredPrincipal,
  thread: { tool_resources?: ToolResources | null; metadata?: Record<string, string> | null; messages?: readonly CreateMessageRequest[] },
  attachmentFileIds: readonly string[],
  param: string,
): Promise<ToolResources> {
  const resources = thread.tool_resources ?? {};
  const fileSearch = (resources.file_search ?? {}) as { vector_store_ids?: string[]; vector_stores?: InlineStore[] };
  const inline = fileSearch.vector_stores ?? [];
  const at = param ? `${param}.` : '';
  const codeFiles = [...(resources.code_interpreter?.file_ids ?? []), ...codeInterpreterAttachments(thread.messages ?? [])];
  for (const id of [...codeFiles, ...inline.flatMap((store) => store.file_ids ?? []), ...attachmentFileIds]) await services.files.get(owner.workspaceId, id);
  const ids = [...(fileSearch.vector_store_ids ?? [])];
  for (const id of ids) await services.vectorStores.visible(owner.workspaceId, id);
  for (const [index, spec] of inline.entries()) {
    const where = `${at}tool_resources.file_search.vector_stores[${index}]`;
    const chunking = chunkingOf(spec.chunking_strategy, `${where}.chunking_strategy`);
    const model = await checkedEmbeddingModel(services.savedResources, owner, spec.metadata, `${where}.`);
    const store = await services.vectorStores.create(owner, principal, { metadata: spec.metadata }, model);
    await services.vectorStores.attach(store, spec.file_ids ?? [], chunking, null);
    ids.push(store.id);
  }
  if (attachmentFileIds.length > 0) {
    let store = ids[0] ? await services.vectorStores.visible(owner.workspaceId, ids[0]) : undefined;
    if (!store) {
      const model = await checkedEmbeddingModel(services.savedResources, owner, thread.metadata, at);
      store = await services.vectorStores.create(owner, principal, { name: 'thread attachments' }, model);
      ids.push(store.id);
    }
    await services.vectorStores.attach(store, [...new Set(attachmentFileIds)], chunkingOf(undefined), null);
  }
  if (!resources.file_search && ids.length === 0) return resources;
  return { ...resources, file_search: { vector_store_ids: ids } };
}

/** A message's file_search attachments on an existing thread: joined to its store; the thread as it now is. */
export async function attachToThread(services: Services, owner: Owner, principal: StoredPrincipal, thread: ThreadObject, message: CreateMessageRequest): Promise<ThreadObject> {
  for (const id of codeInterpreterAttachments([message])) await services.files.get(owner.workspaceId, id);
  const files = fileSearchAttachments([message]);
  if (files.length === 0) return thread;
  const resources = await threadStores(services, owner, principal, { tool_resources: { ...thread.tool_resources, file_search: { vector_store_ids: thread.tool_resources?.file_search?.vector_store_ids ?? [] } }, metadata: thread.metadata }, files, '');
  const updated: ThreadObject = { ...thread, tool_resources: resources };
  await services.store.assistantThreads.replaceBody(thread.id, updated);
  return updated;
}
