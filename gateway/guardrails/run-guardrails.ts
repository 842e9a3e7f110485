/**
 * Runs guardrails over one subject (a request or an answer). Guardrails run one after another so
 * a rewrite by one (redaction) is what the next one sees; a guardrail's checks run in parallel
 * under the guardrail's timeout. A check that throws or outlasts the timeout is an error: with
 * failOnError it fails the guardrail (fail-closed), without it passes with the error noted (fail-open).
 */
import type { CheckContext, CheckSubject, CheckVerdict } from './check-types.js';
import { findGuardrailCheck } from './checks/index.js';
import type { GuardrailCheckEntry, GuardrailDefinition } from './definition.js';
import type { CheckResult, HookResult } from './hook-results.js';

export interface GuardrailsOutcome {
  results: HookResult[];
  /** The first failed guardrail whose action is deny. */
  denied: HookResult | undefined;
  /** The subject text after every rewrite; undefined when no check rewrote it. */
  text: string | undefined;
}

type CheckOutcome = { verdict: CheckVerdict } | { error: string };

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function runCheck(entry: GuardrailCheckEntry, subject: CheckSubject, context: CheckContext): Promise<CheckOutcome> {
  const check = findGuardrailCheck(entry.id);
  if (!check) return { error: `No built-in check ${entry.id}` };
  if (!check.phases.includes(subject.phase)) {
    return { verdict: { verdict: true, explanation: `Runs on ${check.phases.join(' and ')} only; skipped on ${subject.phase}` } };
  }
  try {
    return { verdict: await check.run(entry.parameters ?? {}, subject, context) };
  } catch (error) {
    return { error: errorMessage(error) };
  }
}

/** Each enabled check's outcome, in order; those still running when the timeout fires become errors. */
async function runChecks(guardrail: GuardrailDefinition, subject: CheckSubject, context: Omit<CheckContext, 'signal'>): Promise<CheckOutcome[]> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ error: `The check did not finish within the guardrail's ${guardrail.timeoutMs} ms` });
    }, guardrail.timeoutMs);
  });
  try {
    const enabled = guardrail.checks.filter((entry) => entry.is_enabled !== false);
    return await Promise.all(enabled.map((entry) => Promise.race([runCheck(entry, subject, { ...context, signal: controller.signal }), timedOut])));
  } finally {
    clearTimeout(timer);
  }
}

async function runGuardrail(guardrail: GuardrailDefinition, subject: CheckSubject, context: Omit<CheckContext, 'signal'>): Promise<{ result: HookResult; text: string | undefined }> {
  const enabled = guardrail.checks.filter((entry) => entry.is_enabled !== false);
  const outcomes = await runChecks(guardrail, subject, context);
  let text: string | undefined;
  const checks: CheckResult[] = outcomes.map((outcome, index) => {
    const id = enabled[index]!.id;
    if ('error' in outcome) return { id, verdict: !guardrail.failOnError, error: outcome.error };
    const { verdict, explanation, data, transformedText } = outcome.verdict;
    const result: CheckResult = { id, verdict };
    if (explanation !== undefined) result.explanation = explanation;
    if (data !== undefined) result.data = data;
    if (transformedText !== undefined) {
      result.transformed = true;
      text = transformedText;
    }
    return result;
  });
  return {
    result: {
      id: guardrail.id,
      slug: guardrail.slug,
      phase: subject.phase,
      verdict: checks.every((check) => check.verdict),
      deny: guardrail.actions.deny === true,
      transformed: text !== undefined,
      checks,
    },
    text,
  };
}

export async function runGuardrails(guardrails: GuardrailDefinition[], subject: CheckSubject, context: Omit<CheckContext, 'signal'>): Promise<GuardrailsOutcome> {
  const results: HookResult[] = [];
  let current = subject;
  let text: string | undefined;
  for (const guardrail of guardrails) {
    const run = await runGuardrail(guardrail, current, context);
    results.push(run.result);
    if (run.text !== undefined) {
      text = run.text;
      current = { ...current, text };
    }
  }
  return { results, denied: results.find((result) => !result.verdict && result.deny), text };
}
