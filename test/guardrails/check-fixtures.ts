/** Subjects and a context for running guardrail checks directly, without the gateway. */
import { vetOutboundUrl, type ResolveHost } from '../../gateway/outbound/url-guard.js';
import type { CheckContext, CheckSubject, CheckVerdict } from '../../gateway/guardrails/check-types.js';
import { findGuardrailCheck } from '../../gateway/guardrails/checks/index.js';
import type { ChatCompletion, ChatRequest } from '../../gateway/providers/types.js';

export function inputSubject(text: string, overrides: Partial<CheckSubject> = {}): CheckSubject {
  const request = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] } as unknown as ChatRequest;
  return { phase: 'input', request, text, metadata: {}, requestType: 'chatComplete', headers: {}, ...overrides };
}

export function outputSubject(text: string | null, overrides: Partial<CheckSubject> = {}): CheckSubject {
  const completion = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: text, refusal: null } }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  } as ChatCompletion;
  return { ...inputSubject('question'), phase: 'output', completion, text: text ?? '', ...overrides };
}

// Made-up names only: the stub never queries DNS.
const answers: Record<string, string[]> = { 'private.test': ['10.0.0.5'], 'public.test': ['93.184.215.14'] };
const resolve: ResolveHost = async (hostname) => {
  const found = answers[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

/** The project's real outbound guard; only 127.0.0.1 (the fake endpoints) is trusted. */
export function checkContext(overrides: Partial<CheckContext> = {}): CheckContext {
  return {
    fetch,
    vetUrl: async (url, param) => (await vetOutboundUrl(url, { trustedHosts: ['127.0.0.1'], resolve, param, code: 'unsafe_guardrail_url' })).url,
    now: () => Date.parse('2026-11-23T12:00:00Z'),
    ...overrides,
  };
}

/** Runs the check registered under `id`, as the runner would. */
export async function runCheck(id: string, params: Record<string, unknown>, subject: CheckSubject, context = checkContext()): Promise<CheckVerdict> {
  const check = findGuardrailCheck(id);
  if (!check) throw new Error(`no check ${id}`);
  return check.run(params, subject, context);
}
