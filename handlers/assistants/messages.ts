import { attachToThread } from '../../gateway/assistants/thread-files.js';
import { storedPrincipal } from '../../gateway/batches/line-call.js';
import { principalOf } from '../../core/call.js';
import { writeMessage } from '../../gateway/assistants/thread-writer.js';
import type { MessageObject } from '../../gateway/assistants/wire.js';
import type { Call } from '../../core/call.js';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { body, query, type Handler } from '../types.js';
import { ownerOf, pathParam, visibleThread } from './owner.js';

async function visibleMessage(call: Call, threadId: string, messageId: string): Promise<MessageObject> {
  const row = await call.services.store.assistantMessages.get({ workspaceId: ownerOf(call).workspaceId, threadId }, messageId);
  if (!row) throw new NotFoundError('Message', messageId);
  return row.body;
}

export const createMessage: Handler = async (c, call) => {
  const thread = await visibleThread(call, pathParam(c, 'thread_id'));
  const { store } = call.services;
  // OpenAI refuses messages while a run works on the thread: the run reads the thread as it was.
  const active = await store.assistantRuns.activeOnThread(thread.id);
  if (active && active.status !== 'requires_action') {
    throw new ValidationError(`Can't add messages to ${thread.id} while a run ${active.id} is active`, 'thread_id', 'thread_has_active_run');
  }
  const input = body<'createMessage'>(c);
  const message = await writeMessage(store, ownerOf(call), thread.id, input, '', call.services.now());
  await attachToThread(call.services, ownerOf(call), storedPrincipal(principalOf(call)), thread, input);
  return { body: message };
};

export const listMessages: Handler = async (c, call) => {
  const thread = await visibleThread(call, pathParam(c, 'thread_id'));
  const { run_id: runId, ...page } = query<'listMessages'>(c);
  const filter: Record<string, string> = runId ? { run_id: runId } : {};
  return { body: await call.services.store.assistantMessages.list({ workspaceId: ownerOf(call).workspaceId, threadId: thread.id }, page, filter) };
};

export const getMessage: Handler = async (c, call) => ({ body: await visibleMessage(call, pathParam(c, 'thread_id'), pathParam(c, 'message_id')) });

export const modifyMessage: Handler = async (c, call) => {
  const message = await visibleMessage(call, pathParam(c, 'thread_id'), pathParam(c, 'message_id'));
  const input = body<'modifyMessage'>(c);
  const updated: MessageObject = input.metadata !== undefined ? { ...message, metadata: input.metadata ?? {} } : message;
  await call.services.store.assistantMessages.replaceBody(message.id, updated);
  return { body: updated };
};

export const deleteMessage: Handler = async (c, call) => {
  const threadId = pathParam(c, 'thread_id');
  const messageId = pathParam(c, 'message_id');
  await visibleMessage(call, threadId, messageId);
  await call.services.store.assistantMessages.delete({ workspaceId: ownerOf(call).workspaceId, threadId }, messageId);
  return { body: { id: messageId, object: 'thread.message.deleted', deleted: true } };
};
