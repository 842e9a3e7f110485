/**
 * A guardrail run on demand (`POST /v1/guardrails/{id}/invoke`, `POST /v1/guardrails/invoke`):
 * the given text or message list becomes the subject the gateway would check, the guardrail's
 * checks run on it with no model call, and the run is logged as a request (endpoint
 * `guardrails.invoke`) so the logs, analytics and guardrail metrics count it with the others.
 */
import { randomUUID } from 'node:crypto';
import type { Call } from '../../core/call.js';
import type { Principal } from '../../core/auth/principal.js';
import { ValidationError } from '../../core/errors.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { unmeteredLogEntry } from '../logs/unmetered-entry.js';
import { subjectHeaders } from '../chat/chat-guardrails.js';
import type { ChatCompletion, ChatRequest } from '../providers/types.js';
import { logRequest } from '../telemetry/log-request.js';
import type { CheckSubject } from './check-types.js';
import type { GuardrailDefinition } from './definition.js';
import type { HookResult } from './hook-results.js';
import { runGuardrails } from './run-guardrails.js';
import { completionText, requestText } from './subject-text.js';

type Message = ChatRequest['messages'][number];

export interface GuardrailInput {
  input: string | Message[];
  phase?: 'input' | 'output';
  model?: string;
  metadata?: Record<string, string>;
}

export type GuardrailInvocation = HookResult & { object: 'guardrail.invocation'; text?: string };

function answerOf(model: string, message: Message): ChatCompletion {
  return {
    id: `guardrail-invoke-${randomUUID()}`,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: message as ChatCompletion['choices'][number]['message'], finish_reason: 'stop', logprobs: null }],
  } as ChatCompletion;
}

/** The request (and for `output`, the answer) the checks see; refuses input with nothing to check. */
function subjectOf(call: Call, principal: Principal, given: GuardrailInput): CheckSubject {
  const phase = given.phase ?? 'input';
  const model = given.model ?? '';
  const base = { phase, metadata: given.metadata ?? {}, requestType: 'chatComplete', headers: subjectHeaders({ call, principal }) } as const;
  if (typeof given.input === 'string') {
    if (phase === 'input') return { ...base, request: { model, messages: [{ role: 'user', content: given.input }] }, text: given.input };
    const completion = answerOf(model, { role: 'assistant', content: given.input });
    return { ...base, request: { model, messages: [] as unknown as ChatRequest['messages'] }, completion, text: given.input };
  }
  const messages = given.input;
  if (phase === 'input') {
    if (!messages.some((message) => message.role === 'user')) {
      throw new ValidationError('input has no user message: with phase input the checks read the last user message', 'input', 'no_text_to_check');
    }
    const request = { model, messages };
    return { ...base, request, text: requestText(request) };
  }
  const last = messages[messages.length - 1]!;
  if (last.role !== 'assistant') {
    throw new ValidationError('With phase output the last message is the answer under check and must have role assistant', `input[${messages.length - 1}].role`, 'no_text_to_check');
  }
  const completion = answerOf(model, last);
  return { ...base, request: { model, messages: messages.slice(0, -1) }, completion, text: completionText(completion) };
}

/** Runs one guardrail on the input, logs the run in `workspaceId`, and answers the result. */
export async function invokeGuardrail(call: Call, principal: Principal, guardrail: GuardrailDefinition, given: GuardrailInput, workspaceId: string): Promise<GuardrailInvocation> {
  const subject = subjectOf(call, principal, given);
  const { services } = call;
  const startedAt = services.now();
  const outcome = await runGuardrails([guardrail], subject, { ...services.guardrailOutbound, now: services.now });
  const result = outcome.results[0]!;
  const answer: GuardrailInvocation = { object: 'guardrail.invocation', ...result };
  if (outcome.text !== undefined) answer.text = outcome.text;
  logRequest(call, invocationLogEntry(call, principal, { startedAt, workspaceId, given, result, answer, guardrail }));
  return answer;
}

interface Run {
  startedAt: number;
  workspaceId: string;
  given: GuardrailInput;
  result: HookResult;
  answer: GuardrailInvocation;
  guardrail: GuardrailDefinition;
}

function invocationLogEntry(call: Call, principal: Principal, run: Run): RequestLogEntry {
  return unmeteredLogEntry(call, principal, {
    endpoint: 'guardrails.invoke',
    created_at: run.startedAt,
    workspace_id: run.workspaceId,
    provider: null,
    model: run.given.model ?? null,
    status: 200,
    latency_ms: call.services.now() - run.startedAt,
    first_byte_ms: null,
    stream: false,
    metadata: { ...(run.given.metadata ?? {}), guardrail: run.guardrail.slug ?? 'inline' },
    request_body: run.given,
    response_body: run.answer,
    error: null,
    guardrail_results: [run.result],
  });
}
