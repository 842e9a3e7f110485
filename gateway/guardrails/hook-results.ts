/** What guardrails report on one request: per guardrail, per check. Logged and sent as `hook_results`. */
import type { GuardrailPhase } from './definition.js';

export interface CheckResult {
  id: string;
  verdict: boolean;
  explanation?: string;
  data?: unknown;
  /** Why the check could not run (with failOnError false it then passed). */
  error?: string;
  transformed?: boolean;
}

export interface HookResult {
  id: string | null;
  slug: string | null;
  phase: GuardrailPhase;
  verdict: boolean;
  deny: boolean;
  transformed: boolean;
  checks: CheckResult[];
}

export interface HookResults {
  before_request_hooks: HookResult[];
  after_request_hooks: HookResult[];
}

export function emptyHookResults(): HookResults {
  return { before_request_hooks: [], after_request_hooks: [] };
}

/** A monitor-only guardrail failed: the answer passes with status 246. */
export function monitorFailed(results: HookResults): boolean {
  return [...results.before_request_hooks, ...results.after_request_hooks].some((result) => !result.verdict && !result.deny);
}
