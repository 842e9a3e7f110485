import type { Principal } from '../../core/auth/principal.js';
import { principalOf } from '../../core/call.js';
import { ForbiddenError, NotFoundError } from '../../core/errors.js';
import type { FeedbackRecord } from '../../store/repositories/log-feedback.js';
import { body, pathId, type Handler } from '../types.js';

/** The spec: feedback is given with a workspace key, never an admin key. */
function workspaceOf(principal: Principal): string {
  if (principal.workspaceId === null) throw new ForbiddenError('Feedback is given with a workspace API key, not an admin key', 'workspace_key_required');
  return principal.workspaceId;
}

function present(record: FeedbackRecord) {
  return {
    id: record.id,
    object: 'feedback',
    trace_id: record.trace_id,
    value: record.value,
    weight: record.weight,
    metadata: record.metadata,
    workspace_id: record.workspace_id,
    created_at: new Date(record.created_at).toISOString(),
    updated_at: new Date(record.updated_at).toISOString(),
  };
}

export const createFeedback: Handler = async (c, call) => {
  const principal = principalOf(call);
  const workspaceId = workspaceOf(principal);
  const input = body<'createFeedback'>(c) as { trace_id: string; value: number; weight?: number; metadata?: Record<string, string> };
  const record = await call.services.store.logFeedback.create(
    {
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      api_key_id: principal.keyId,
      trace_id: input.trace_id,
      value: input.value,
      weight: input.weight ?? 1,
      metadata: input.metadata ?? {},
    },
    call.services.now(),
  );
  return { status: 201, body: present(record) };
};

export const updateFeedback: Handler = async (c, call) => {
  const principal = principalOf(call);
  const workspaceId = workspaceOf(principal);
  const { store, now } = call.services;
  const record = await store.logFeedback.get(principal.organisationId, workspaceId, pathId(c));
  if (!record) throw new NotFoundError('Feedback', pathId(c));
  const input = body<'updateFeedback'>(c) as Partial<Pick<FeedbackRecord, 'value' | 'weight' | 'metadata'>>;
  await store.logFeedback.update(record.id, input, now());
  return { body: present((await store.logFeedback.get(principal.organisationId, workspaceId, record.id))!) };
};
