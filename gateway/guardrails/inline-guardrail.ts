import { assertValidChecks } from './check-parameters.js';
import { DEFAULT_GUARDRAIL_TIMEOUT_MS, type GuardrailActions, type GuardrailCheckEntry, type GuardrailDefinition } from './definition.js';

/** An inline guardrail object of a config (shape already checked by the spec's InlineGuardrail schema). */
export interface InlineGuardrail {
  name?: string;
  checks: GuardrailCheckEntry[];
  actions?: GuardrailActions;
  failOnError?: boolean;
  timeout_ms?: number;
}

/** Validates an inline guardrail's checks (param names where it sits) and returns it ready to run. */
export function inlineGuardrail(raw: InlineGuardrail, param: string): GuardrailDefinition {
  return {
    id: null,
    slug: null,
    name: raw.name ?? 'inline',
    checks: assertValidChecks(raw.checks, `${param}.checks`),
    actions: raw.actions ?? {},
    failOnError: raw.failOnError ?? false,
    timeoutMs: raw.timeout_ms ?? DEFAULT_GUARDRAIL_TIMEOUT_MS,
  };
}
