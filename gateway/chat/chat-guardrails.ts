/**
 * Guardrails in the chat pipeline: which run where, and what their verdict does.
 *
 * - Input: the organisation's default input guardrails (unless the workspace is excluded) and the
 *   config root's `input_guardrails` run before routing; a target's own `input_guardrails` run
 *   inside that target's call, so a denial there is a routing failure (446) a fallback moves past.
 * - Output: a target's own `output_guardrails` run inside its call for JSON answers (same reason);
 *   the defaults and the root's run on the answer that served. Streams are judged on the assembled
 *   answer: held first when a guardrail asks (`actions.hold_stream`), else after they end, logged.
 * - A failed guardrail with `actions.deny` answers 446 (GuardrailDeniedError); a failed
 *   monitor-only one lets the answer pass with status 246. Rewrites (redaction, webhook
 *   transformed data) replace the request's last user text or the answer's text.
 */
import { isChatRequest } from './upstream-answer.js';
import { GuardrailDeniedError, ValidationError } from '../../core/errors.js';
import type { CheckSubject } from '../guardrails/check-types.js';
import type { GuardrailDefinition, GuardrailPhase } from '../guardrails/definition.js';
import { emptyHookResults, type HookResult } from '../guardrails/hook-results.js';
import { inlineGuardrail, type InlineGuardrail } from '../guardrails/inline-guardrail.js';
import { runGuardrails } from '../guardrails/run-guardrails.js';
import { completionText, requestText, withCompletionText, withRequestText } from '../guardrails/subject-text.js';
import type { ChatCompletion, ChatRequest } from '../providers/types.js';
import type { Leaf } from '../routing/strategy-tree.js';
import type { ChatState } from './chat-state.js';

type GuardrailRef = string | InlineGuardrail;

/** Who asks for guardrails: any gateway request path (chat, pass-through) has a call and a principal. */
type GuardrailOwner = Pick<ChatState, 'call' | 'principal'>;

/** Saved guardrails by id or slug, inline ones validated; `param` names where the list sits. */
export async function resolveGuardrails(state: GuardrailOwner, refs: unknown, param: string): Promise<GuardrailDefinition[]> {
  if (!Array.isArray(refs) || refs.length === 0) return [];
  const { principal } = state;
  return Promise.all(
    (refs as GuardrailRef[]).map(async (ref, index) => {
      if (typeof ref !== 'string') return inlineGuardrail(ref, `${param}[${index}]`);
      const saved = await state.call.services.guardrails.guardrail(principal.organisationId, principal.gatewayWorkspaceId, ref);
      if (!saved) throw new ValidationError(`${param}[${index}] names no guardrail of this workspace: ${ref}`, `${param}[${index}]`, 'unknown_guardrail');
      return saved;
    }),
  );
}

export function defaultGuardrails(state: GuardrailOwner, phase: GuardrailPhase): Promise<GuardrailDefinition[]> {
  const { principal } = state;
  return state.call.services.guardrails.defaultsFor(principal.organisationId, principal.gatewayWorkspaceId, phase);
}

/** The request's headers as guardrail checks see them (CheckSubject.headers). */
export function subjectHeaders(state: GuardrailOwner): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(state.call.req.headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function subjectOf(state: ChatState, phase: GuardrailPhase, request: ChatRequest, completion?: ChatCompletion): CheckSubject {
  return {
    phase,
    request,
    completion,
    text: completion ? completionText(completion) : requestText(request),
    metadata: state.headers?.metadata ?? {},
    requestType: 'chatComplete',
    headers: subjectHeaders(state),
  };
}

async function judge(state: ChatState, guardrails: GuardrailDefinition[], subject: CheckSubject): Promise<{ denied: HookResult | undefined; text: string | undefined }> {
  const { services } = state.call;
  const outcome = await runGuardrails(guardrails, subject, { ...services.guardrailOutbound, now: services.now });
  state.hookResults ??= emptyHookResults();
  const list = subject.phase === 'input' ? state.hookResults.before_request_hooks : state.hookResults.after_request_hooks;
  list.push(...outcome.results);
  return outcome;
}

function denial(state: ChatState, denied: HookResult, what: string): GuardrailDeniedError {
  const name = denied.slug ?? 'an inline guardrail';
  return new GuardrailDeniedError(`Guardrail ${name} denied ${what}`, state.hookResults);
}

/** Runs input guardrails; returns the request as they left it (rewritten or not); throws on a denial. */
export async function guardRequest(state: ChatState, guardrails: GuardrailDefinition[], request: ChatRequest): Promise<ChatRequest> {
  if (!guardrails.length) return request;
  const { denied, text } = await judge(state, guardrails, subjectOf(state, 'input', request));
  if (denied) throw denial(state, denied, 'the request');
  return text === undefined ? request : withRequestText(request, text);
}

/** Runs output guardrails on an answer; returns it as they left it; throws on a denial unless `enforce` is false (a stream already sent). */
export async function guardAnswer(
  state: ChatState,
  guardrails: GuardrailDefinition[],
  completion: ChatCompletion,
  enforce = true,
): Promise<ChatCompletion> {
  // Guardrails judge text: an embeddings request has no answer text to judge.
  if (!guardrails.length || !isChatRequest(state.request)) return completion;
  const { denied, text } = await judge(state, guardrails, subjectOf(state, 'output', state.request, completion));
  if (denied && enforce) throw denial(state, denied, 'the answer');
  return text === undefined ? completion : withCompletionText(completion, text);
}

type GuardrailKey = 'input_guardrails' | 'output_guardrails';

/** "0.1" -> "config.targets[0].targets[1].input_guardrails" */
function targetParam(path: string, key: GuardrailKey): string {
  return `config${path.split('.').map((index) => `.targets[${index}]`).join('')}.${key}`;
}

/**
 * A target's own guardrails: set below the root, not the root's handed down by inheritance. They
 * add to the root's, which run on the whole request whichever target serves.
 */
export function ownGuardrails(state: ChatState, leaf: Leaf, key: GuardrailKey): Promise<GuardrailDefinition[]> {
  const own = leaf.settings[key];
  if (own === undefined || own === state.plan!.config[key]) return Promise.resolve([]);
  return resolveGuardrails(state, own, targetParam(leaf.path, key));
}

/** Inside a target's call: its own input guardrails on the request it is about to get. */
export async function guardTargetRequest(state: ChatState, leaf: Leaf, request: Record<string, unknown>): Promise<Record<string, unknown>> {
  const own = await ownGuardrails(state, leaf, 'input_guardrails');
  if (own.length === 0) return request;
  return (await guardRequest(state, own, request as ChatRequest)) as unknown as Record<string, unknown>;
}

/** Inside a target's call: its own output guardrails on its JSON answer. */
export async function guardTargetAnswer(state: ChatState, leaf: Leaf, completion: ChatCompletion): Promise<ChatCompletion> {
  return guardAnswer(state, await ownGuardrails(state, leaf, 'output_guardrails'), completion);
}
