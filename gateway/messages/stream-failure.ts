/** A failure after a Messages stream opened: one `error` event in Anthropic's shape, as Anthropic ends such a stream. */
import { anthropicError } from '../../core/protocol-errors.js';
import { ApiError } from '../../core/errors.js';

export interface StreamFailure {
  status?: number;
  code?: string;
  message?: string;
  type?: string;
}

export function anthropicErrorEvent(failure: StreamFailure): unknown {
  const error = failure instanceof ApiError ? failure : new ApiError(failure.status ?? 500, failure.code ?? 'upstream_error', failure.message ?? 'the stream failed', 'upstream_error');
  return anthropicError(error).body;
}
