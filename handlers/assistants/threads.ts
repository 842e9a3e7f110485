import { fileSearchAttachments, threadStores } from '../../gateway/assistants/thread-files.js';
import { checkedToolResources } from '../../gateway/assistants/assistant-references.js';
import { storedPrincipal } from '../../gateway/batches/line-call.js';
import { principalOf } from '../../core/call.js';
import { writeThread } from '../../gateway/assistants/thread-writer.js';
import type { ThreadObject } from '../../gateway/assistants/wire.js';
import { ValidationError } from '../../core/errors.js';
import { body, type Handler } from '../types.js';
import { ownerOf, pathParam, visibleThread } from './owner.js';

export const createThread: Handler = async (c, call) => {
  const input = body<'createThread'>(c);
  const toolResources = await threadStores(call.services, ownerOf(call), storedPrincipal(principalOf(call)), input, fileSearchAttachments(input.messages ?? []), '');
  return { body: await writeThread(call.services.store, ownerOf(call), { ...input, tool_resources: toolResources }, '', call.services.now()) };
};

export const getThread: Handler = async (c, call) => ({ body: await visibleThread(call, pathParam(c, 'thread_id')) });

export const modifyThread: Handler = async (c, call) => {
  const thread = await visibleThread(call, pathParam(c, 'thread_id'));
  const input = body<'modifyThread'>(c);
  const updated: ThreadObject = {
    ...thread,
    ...(input.metadata !== undefined ? { metadata: input.metadata ?? {} } : {}),
    ...(input.tool_resources !== undefined
      ? { tool_resources: await checkedToolResources(call.services, ownerOf(call), storedPrincipal(principalOf(call)), input.tool_resources) }
      : {}),
  };
  await call.services.store.assistantThreads.replaceBody(thread.id, updated);
  return { body: updated };
};

export const deleteThread: Handler = async (c, call) => {
  const thread = await visibleThread(call, pathParam(c, 'thread_id'));
  const { store } = call.services;
  // A run still working on the thread would write into a deleted thread: it has to end first.
  if (await store.assistantRuns.activeOnThread(thread.id)) {
    throw new ValidationError(`Thread ${thread.id} has an active run; cancel it first`, 'thread_id', 'thread_has_active_run');
  }
  await store.transaction(async (tx) => {
    await tx.assistantRunSteps.deleteThreadContents(thread.id);
    await tx.assistantRuns.deleteThreadContents(thread.id);
    await tx.assistantMessages.deleteThreadContents(thread.id);
    await tx.assistantThreads.delete({ workspaceId: ownerOf(call).workspaceId }, thread.id);
  });
  return { body: { id: thread.id, object: 'thread.deleted', deleted: true } };
};
