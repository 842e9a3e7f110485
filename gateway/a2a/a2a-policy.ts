/**
 * What gw adds to an A2A call: `agents` rate limits and the integration's guardrails on the text
 * parts going in and coming out. Checks judge (deny or monitor); a check that would rewrite text
 * (PII redaction) is reported, not applied, since A2A parts are relayed as the agent sent them.
 */
import type { CheckSubject } from '../guardrails/check-types.js';
import type { GuardrailDefinition } from '../guardrails/definition.js';
import type { HookResult } from '../guardrails/hook-results.js';
import { runGuardrails } from '../guardrails/run-guardrails.js';
import { requestFacts } from '../limits/policy-match.js';
import type { A2aCall } from './a2a-call.js';
import { textsOf } from './bridge.js';

/** `agents` rate limits, with the conditions and group_by of `llm` policies plus the agent and skill; over a limit: ApiError 429. */
export async function checkAgentRateLimits(context: A2aCall): Promise<void> {
  const { principal, call, target } = context;
  const apiKeyId = principal.keyId ?? '';
  const policies = await call.services.limitPolicies.forRequest({ organisationId: principal.organisationId, apiKeyId, workspaceId: target.workspaceId });
  if (!policies.rate.length) return;
  const metadata = { ...context.metadata, a2a_agent: target.integration.slug, a2a_skill: context.skill ?? '' };
  const facts = requestFacts({ apiKeyId, workspaceId: target.workspaceId, metadata });
  await call.services.limits.checkRateLimits(policies, facts, { requests: 1, tokens: 0, cost: 0 }, 'agents');
}

export interface GuardVerdict {
  results: HookResult[];
  /** Set when a deny guardrail failed: the message the caller gets. */
  denied?: string;
}

async function definitions(context: A2aCall, names: string[]): Promise<GuardrailDefinition[]> {
  const { call, principal, target } = context;
  const found = await Promise.all(names.map((name) => call.services.guardrails.guardrail(principal.organisationId, target.workspaceId, name)));
  return found.filter((definition): definition is GuardrailDefinition => definition !== undefined);
}

function headersOf(context: A2aCall): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(context.call.req.headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** Runs the integration's input or output guardrails over the text parts of `content` (nothing to run: no verdict, and no walk over the content). */
export async function guardTexts(context: A2aCall, phase: 'input' | 'output', content: unknown): Promise<GuardVerdict> {
  const integration = context.target.integration;
  const names = phase === 'input' ? integration.input_guardrails : integration.output_guardrails;
  if (!names.length) return { results: [] };
  const texts = textsOf(content);
  if (!texts.length) return { results: [] };
  const guardrails = await definitions(context, names);
  if (!guardrails.length) return { results: [] };
  const text = texts.join('\n');
  const subject: CheckSubject = {
    phase,
    request: { model: `a2a:${integration.slug}`, messages: [{ role: 'user', content: phase === 'input' ? text : context.canonical }] } as CheckSubject['request'],
    text,
    metadata: context.metadata,
    requestType: 'a2aCall',
    headers: headersOf(context),
  };
  const { services } = context.call;
  const outcome = await runGuardrails(guardrails, subject, { ...services.guardrailOutbound, now: services.now });
  if (!outcome.denied) return { results: outcome.results };
  const stage = phase === 'input' ? 'message to the agent' : "agent's answer";
  return { results: outcome.results, denied: `Blocked by guardrail ${outcome.denied.slug ?? outcome.denied.id ?? 'unnamed'} (${stage})` };
}
