/**
 * A call's secrets (core/redaction.ts), read from its headers once and only when something is
 * about to keep or show data from it: an error answer, an audit entry, a line on standard output.
 */
import type { Call } from './call.js';
import { ApiError } from './errors.js';
import { ProtocolError } from './protocol-errors.js';
import { RequestSecrets } from './redaction.js';

const ofCall = new WeakMap<Call, RequestSecrets>();

export function requestSecrets(call: Call): RequestSecrets {
  let secrets = ofCall.get(call);
  if (!secrets) {
    secrets = new RequestSecrets(call.req.headers, call.services.config.headersToMask);
    ofCall.set(call, secrets);
  }
  return secrets;
}

/** The error as it may be answered or logged: its message without the call's secrets. */
export function redactedApiError(call: Call, error: ApiError): ApiError {
  const secrets = requestSecrets(call);
  const message = secrets.text(error.message);
  if (message === error.message) return error;
  // A protocol's own body says the message too: redacted in place, so it keeps its shape.
  if (error instanceof ProtocolError) return new ProtocolError(error.status, error.code, message, error.type, JSON.parse(secrets.text(JSON.stringify(error.body))), error.headers);
  return new ApiError(error.status, error.code, message, error.type, { param: error.param, headers: error.headers });
}

/** What standard output may show of an unexpected error: message and stack without the call's secrets. */
export function redactedError(call: Call, error: unknown): { type: string; message: string; stack?: string } {
  const secrets = requestSecrets(call);
  if (!(error instanceof Error)) return { type: typeof error, message: secrets.text(String(error)) };
  return { type: error.name, message: secrets.text(error.message), stack: error.stack === undefined ? undefined : secrets.text(error.stack) };
}
