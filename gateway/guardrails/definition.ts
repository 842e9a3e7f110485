/** A guardrail as the runner uses it: saved (with id and slug) or written inline in a config. */

export interface GuardrailCheckEntry {
  id: string;
  parameters?: Record<string, unknown>;
  /** false keeps the check in the guardrail without running it. */
  is_enabled?: boolean;
}

export interface GuardrailActions {
  /** true blocks a failed request or answer (446); false only reports it (246). */
  deny?: boolean;
  /** Streams: hold the answer until this output guardrail has judged it (a denial then comes before the first byte). */
  hold_stream?: boolean;
}

export interface GuardrailDefinition {
  /** Null for an inline guardrail. */
  id: string | null;
  slug: string | null;
  name: string;
  checks: GuardrailCheckEntry[];
  actions: GuardrailActions;
  /** A check that cannot run fails the guardrail (true) or passes with the error noted (false). */
  failOnError: boolean;
  timeoutMs: number;
}

export type GuardrailPhase = 'input' | 'output';

export const DEFAULT_GUARDRAIL_TIMEOUT_MS = 10_000;
