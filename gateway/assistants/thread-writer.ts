/** Creating a thread with its first messages: one transaction, so a refused message leaves no half thread. */
import type { Store } from '../../store/store.js';
import { nextPosition } from '../../store/repositories/assistant-objects.js';
import { newMessage } from './message-content.js';
import { newObjectId, unixSeconds } from './object-ids.js';
import type { CreateMessageRequest, CreateThreadRequest, MessageObject, ThreadObject } from './wire.js';

export interface Owner {
  organisationId: string;
  workspaceId: string;
}

export async function writeMessage(
  store: Store,
  owner: Owner,
  threadId: string,
  input: CreateMessageRequest,
  param: string,
  now: number,
  from: { assistantId?: string | null; runId?: string | null } = {},
): Promise<MessageObject> {
  const message = newMessage(input, param, { id: newObjectId('msg'), threadId, createdAt: unixSeconds(now), ...from });
  await store.assistantMessages.insert({
    id: message.id,
    organisation_id: owner.organisationId,
    workspace_id: owner.workspaceId,
    thread_id: threadId,
    run_id: from.runId ?? null,
    position: nextPosition(now),
    body: message,
  });
  return message;
}

export async function writeThread(store: Store, owner: Owner, input: CreateThreadRequest, param: string, now: number): Promise<ThreadObject> {
  const thread: ThreadObject = {
    id: newObjectId('thread'),
    object: 'thread',
    created_at: unixSeconds(now),
    tool_resources: input.tool_resources ?? {},
    metadata: input.metadata ?? {},
  };
  await store.transaction(async (tx) => {
    await tx.assistantThreads.insert({
      id: thread.id,
      organisation_id: owner.organisationId,
      workspace_id: owner.workspaceId,
      thread_id: null,
      run_id: null,
      position: nextPosition(now),
      body: thread,
    });
    for (const [index, message] of (input.messages ?? []).entries()) await writeMessage(tx, owner, thread.id, message, `${param ? `${param}.` : ''}messages[${index}]`, now);
  });
  return thread;
}
