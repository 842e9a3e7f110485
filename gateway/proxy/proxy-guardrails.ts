/**
 * Guardrails on a pass-through request: its body is streamed, never read, so the only checks that
 * can judge it are webhooks that opted in with `executeOnProxy` (they receive the method, path and
 * content type). The organisation's default input guardrails and the config's `input_guardrails`
 * are searched for such checks; a guardrail without one does not run, and one that has them runs
 * with those checks only. A failed guardrail with `actions.deny` refuses the request (446).
 */
import { GuardrailDeniedError } from '../../core/errors.js';
import type { Principal } from '../../core/auth/principal.js';
import type { Call } from '../../core/call.js';
import type { CheckSubject } from '../guardrails/check-types.js';
import type { GuardrailDefinition } from '../guardrails/definition.js';
import { emptyHookResults, type HookResults } from '../guardrails/hook-results.js';
import { runGuardrails } from '../guardrails/run-guardrails.js';
import { defaultGuardrails, resolveGuardrails, subjectHeaders } from '../chat/chat-guardrails.js';

/** Checks take a chat request; a pass-through has none, so they get an empty one. */
const NO_CHAT_REQUEST: CheckSubject['request'] = Object.freeze({ model: '', messages: [] }) as unknown as CheckSubject['request'];

export interface ProxyGuardrailInput {
  call: Call;
  principal: Principal;
  /** The config root's `input_guardrails`, when a config selected the provider. */
  configGuardrails: unknown;
  metadata: Record<string, string>;
  method: string;
  path: string;
}

function optsIn(parameters: Record<string, unknown> | undefined): boolean {
  return parameters?.executeOnProxy === true;
}

/** The guardrail cut down to its opted-in webhook checks; undefined when it has none. */
function forProxy(guardrail: GuardrailDefinition): GuardrailDefinition | undefined {
  const checks = guardrail.checks.filter((check) => check.is_enabled !== false && check.id === 'default.webhook' && optsIn(check.parameters));
  return checks.length ? { ...guardrail, checks } : undefined;
}

/** Runs the opted-in webhooks; returns their results (undefined when none ran); throws GuardrailDeniedError on a denial. */
export async function guardProxyRequest(input: ProxyGuardrailInput): Promise<HookResults | undefined> {
  const { call } = input;
  const { services } = call;
  const all = [...(await defaultGuardrails(input, 'input')), ...(await resolveGuardrails(input, input.configGuardrails, 'config.input_guardrails'))];
  const guardrails = all.flatMap((guardrail) => forProxy(guardrail) ?? []);
  if (!guardrails.length) return undefined;
  const contentType = call.req.headers['content-type'];
  const subject: CheckSubject = {
    phase: 'input',
    request: NO_CHAT_REQUEST,
    text: '',
    metadata: input.metadata,
    requestType: 'proxy',
    headers: subjectHeaders(input),
    proxy: { method: input.method, path: input.path, contentType },
  };
  const outcome = await runGuardrails(guardrails, subject, { ...services.guardrailOutbound, now: services.now });
  const results = emptyHookResults();
  results.before_request_hooks.push(...outcome.results);
  if (outcome.denied) throw new GuardrailDeniedError(`Guardrail ${outcome.denied.slug ?? 'an inline guardrail'} denied the request`, results);
  return results;
}
