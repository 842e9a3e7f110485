/**
 * A new run: the assistant's settings with the request's overrides, checked against what gw can
 * run, stored queued with its execution state (the caller, the sealed provider-selection
 * headers). The one-active-run-per-thread rule is checked here, before anything runs.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../../core/auth/principal.js';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import type { Services } from '../../core/services.js';
import { nextPosition } from '../../store/repositories/assistant-objects.js';
import { newObjectId, unixSeconds } from './object-ids.js';
import { RUN_EXPIRY_SECONDS } from './run-executor.js';
import { assertAssistantSelection, withAssistantSelection } from './assistant-selection.js';
import { assertInlineSelectionAllowed } from '../resolve/provider-plan.js';
import { sealHeaders, selectionHeaders, storedPrincipal } from './run-state.js';
import { writeMessage, type Owner } from './thread-writer.js';
import type { AssistantObject, CreateMessageRequest, RunObject, RunOptions } from './wire.js';

export interface RunRequest extends RunOptions {
  additional_instructions?: string | null;
  additional_messages?: CreateMessageRequest[] | null;
}

export async function startRun(
  services: Services,
  caller: { principal: Principal; owner: Owner; headers: IncomingHttpHeaders },
  threadId: string,
  input: RunRequest,
  /** A streamed run is executed here at once, so it starts held by this instance; others go to the job queue unheld. */
  executedHere: boolean,
  /** The assistant, when the caller has read it already (one store read less per run). */
  known?: AssistantObject,
): Promise<RunObject> {
  const { store } = services;
  const { owner } = caller;
  const assistant = known ?? (await store.assistants.get({ workspaceId: owner.workspaceId }, input.assistant_id!))?.body;
  if (!assistant) throw new NotFoundError('Assistant', input.assistant_id);
  const tools = input.tools ?? assistant.tools;
  const model = input.model ?? assistant.model;
  const ownHeaders = selectionHeaders(caller.headers, model);
  const headers = withAssistantSelection(ownHeaders, assistant.metadata);
  if (headers !== ownHeaders) await assertAssistantSelection(services.savedResources, owner, assistant.metadata, () => 'assistant_id');
  await assertInlineSelectionAllowed({ headers, model, organisationId: owner.organisationId, savedResources: services.savedResources, blockInlineConfig: services.config.blockInlineConfig });
  const active = await store.assistantRuns.activeOnThread(threadId);
  if (active) throw new ValidationError(`Thread ${threadId} already has an active run ${active.id}`, 'thread_id', 'thread_has_active_run');
  const now = services.now();
  for (const [index, message] of (input.additional_messages ?? []).entries()) {
    await writeMessage(store, owner, threadId, message, `additional_messages[${index}]`, now);
  }
  const base = input.instructions ?? assistant.instructions ?? '';
  const created = unixSeconds(now);
  const run: RunObject = {
    id: newObjectId('run'),
    object: 'thread.run',
    created_at: created,
    thread_id: threadId,
    assistant_id: assistant.id,
    status: 'queued',
    required_action: null,
    last_error: null,
    expires_at: created + RUN_EXPIRY_SECONDS,
    started_at: null,
    cancelled_at: null,
    failed_at: null,
    completed_at: null,
    incomplete_details: null,
    model,
    instructions: input.additional_instructions ? `${base}${base ? '\n\n' : ''}${input.additional_instructions}` : base,
    tools,
    metadata: input.metadata ?? {},
    usage: null,
    temperature: input.temperature ?? assistant.temperature ?? null,
    top_p: input.top_p ?? assistant.top_p ?? null,
    max_prompt_tokens: input.max_prompt_tokens ?? null,
    max_completion_tokens: input.max_completion_tokens ?? null,
    truncation_strategy: input.truncation_strategy ?? { type: 'auto', last_messages: null },
    tool_choice: input.tool_choice ?? 'auto',
    parallel_tool_calls: input.parallel_tool_calls ?? true,
    response_format: input.response_format ?? assistant.response_format ?? 'auto',
  };
  const state = {
    principal: storedPrincipal(caller.principal),
    sealedHeaders: sealHeaders(services.secrets, headers),
    transcript: [],
    toolStepId: null,
  };
  await store.assistantRuns.insertRun(
    { id: run.id, organisation_id: owner.organisationId, workspace_id: owner.workspaceId, thread_id: threadId, run_id: null, position: nextPosition(now), body: run },
    state,
    executedHere ? services.assistantRuns.initialLease() : { lease_owner: null, lease_until: null },
  );
  return run;
}
