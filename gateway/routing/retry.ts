/**
 * Retries of one target. `attempts` counts retries after the first try (at most 5). A failure is
 * retried when its status is in `on_status_codes` (default 429, 500, 502, 503, 504; a timeout
 * stands for 408) or when the connection failed (refused, reset, socket hang up). Guardrail
 * denials, a saved provider's limit refusals and other errors are not retried.
 *
 * Waits use exponential backoff with full jitter: random() * min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2^n).
 * With `use_retry_after_header`, an upstream's `retry-after-ms` / `Retry-After` replaces the backoff.
 * The summed waits are capped by `max_retry_wait_ms` (default DEFAULT_RETRY_BUDGET_MS) and by the
 * whole request's deadline: a backoff is shortened to what remains, while a Retry-After longer than
 * what remains ends the retries (coming back sooner than asked is pointless).
 */
import type { RetrySettings } from './config-node.js';
import type { Deadline } from './deadline.js';
import type { Outcome } from './outcome.js';
import { retryAfterMs } from './retry-after.js';

export const MAX_RETRY_ATTEMPTS = 5;
export const DEFAULT_RETRY_STATUS_CODES: readonly number[] = [429, 500, 502, 503, 504];
export const BASE_BACKOFF_MS = 250;
export const MAX_BACKOFF_MS = 8_000;
export const DEFAULT_RETRY_BUDGET_MS = 30_000;

export interface RetryDeps {
  sleep(ms: number): Promise<void>;
  /** [0, 1) */
  random(): number;
  now(): number;
  deadline?: Deadline;
}

export interface RetryResult<T> {
  outcome: Outcome<T>;
  /** Retries made (0 when the first attempt decided). */
  retries: number;
}

export function isRetryable<T>(outcome: Outcome<T>, statusCodes: readonly number[]): boolean {
  if (outcome.ok) return false;
  if (outcome.reason === 'connection') return true;
  if (outcome.reason !== 'status' && outcome.reason !== 'timeout') return false;
  return outcome.status !== null && statusCodes.includes(outcome.status);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function withRetry<T>(
  settings: RetrySettings | undefined,
  attempt: (index: number) => Promise<Outcome<T>>,
  deps: RetryDeps,
): Promise<RetryResult<T>> {
  const attempts = Math.min(Math.max(settings?.attempts ?? 0, 0), MAX_RETRY_ATTEMPTS);
  const statusCodes = settings?.on_status_codes ?? DEFAULT_RETRY_STATUS_CODES;
  let budget = settings?.max_retry_wait_ms ?? DEFAULT_RETRY_BUDGET_MS;
  let outcome = await attempt(0);
  let retries = 0;
  while (retries < attempts && isRetryable(outcome, statusCodes)) {
    if (deps.deadline?.expired()) break;
    const available = Math.min(budget, deps.deadline?.remaining() ?? Number.POSITIVE_INFINITY);
    const asked = settings?.use_retry_after_header && !outcome.ok ? retryAfterMs(outcome.headers, deps.now()) : undefined;
    let wait: number;
    if (asked !== undefined) {
      if (asked > available) break;
      wait = asked;
    } else {
      wait = Math.min(deps.random() * Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** retries), available);
    }
    budget -= wait;
    if (wait > 0) await deps.sleep(wait);
    retries++;
    outcome = await attempt(retries);
  }
  return { outcome, retries };
}
