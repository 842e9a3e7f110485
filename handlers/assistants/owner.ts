import { principalOf, type Call } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import type { Owner } from '../../gateway/assistants/thread-writer.js';
import type { ThreadObject } from '../../gateway/assistants/wire.js';

/** Assistants, threads and runs belong to the workspace the caller's gateway calls land in. */
export function ownerOf(call: Call): Owner {
  const principal = principalOf(call);
  return { organisationId: principal.organisationId, workspaceId: principal.gatewayWorkspaceId };
}

export function pathParam(c: { request: { params: Record<string, unknown> } }, name: string): string {
  return String(c.request.params[name]);
}

export async function visibleThread(call: Call, threadId: string): Promise<ThreadObject> {
  const row = await call.services.store.assistantThreads.get({ workspaceId: ownerOf(call).workspaceId }, threadId);
  if (!row) throw new NotFoundError('Thread', threadId);
  return row.body;
}
