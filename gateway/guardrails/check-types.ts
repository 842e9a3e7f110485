/**
 * The guardrail check contract. Every built-in check under gateway/guardrails/checks/ implements
 * it; the guardrail runner (which checks run, deny or monitor, logging) and the Admin API only
 * use this file and the registry, never a check's module directly.
 */
import type { ChatCompletion, ChatRequest } from '../providers/types.js';

/** What a check looks at. Input checks see the request; output checks also see the answer. */
export interface CheckSubject {
  phase: 'input' | 'output';
  request: ChatRequest;
  /** The answer (assembled from the stream when streaming). Output phase only. */
  completion?: ChatCompletion;
  /**
   * The text under check: the last user turn's text for input, the first choice's message text
   * for output. Checks that look at text use this, so both phases behave alike.
   */
  text: string;
  /** x-gw-metadata of the request. */
  metadata: Record<string, string>;
  /** Request type, e.g. `chatComplete`; `proxy` for /v1/* pass-through calls. */
  requestType: string;
  /** Incoming request headers (lower-case names); webhooks may forward some of them. */
  headers: Record<string, string | undefined>;
  /** Set only for pass-through (proxy) requests: for webhooks with executeOnProxy. */
  proxy?: { method: string; path: string; contentType: string | undefined };
}

/** What a check may use besides its subject: injected so tests stay on loopback and clocks are fake. */
export interface CheckContext {
  /** fetch for webhooks and JWKS, already guarded against private addresses (TRUSTED_CUSTOM_HOSTS honoured). */
  fetch: typeof fetch;
  /** Vets a user-supplied outbound URL before use; throws ApiError (400) for a private address. */
  vetUrl(url: string, param: string): Promise<URL>;
  now: () => number;
  signal?: AbortSignal;
}

export interface CheckVerdict {
  /** true: the check passed. */
  verdict: boolean;
  /** Why, for the results shown to the user and logged. */
  explanation?: string;
  /** Check-specific details (matches found, counts, webhook answer). */
  data?: unknown;
  /**
   * The subject rewritten by the check (PII redaction, webhook transformed data): the new text
   * replaces `subject.text` in the request or the answer.
   */
  transformedText?: string;
}

export interface GuardrailCheck<Params = Record<string, unknown>> {
  /** Check id as written in a guardrail's `checks[].id`, e.g. `default.regexMatch`. */
  readonly id: string;
  /** JSON schema of `parameters`, compiled with ajv when a guardrail is saved or sent inline. */
  readonly parametersSchema: Record<string, unknown>;
  /** Phases the check makes sense in (model allow-list is input only, for one). */
  readonly phases: ReadonlyArray<'input' | 'output'>;
  /**
   * Optional: what the schema cannot say (a regex that does not compile, min above max, restricted
   * forwardHeaders). Called after the schema passed (guardrails/check-parameters.ts); throws
   * ValidationError naming `${param}.<field>`.
   */
  assertParameters?(params: Params, param: string): void;
  run(params: Params, subject: CheckSubject, context: CheckContext): Promise<CheckVerdict> | CheckVerdict;
}
