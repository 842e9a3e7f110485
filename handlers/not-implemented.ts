import { ApiError } from '../core/errors.js';
import type { Handler } from './types.js';

/**
 * What a stub from `make generate` answers until its handler is written: 501 in the one error
 * body. `make check` fails while a stub remains (scripts/handler-stubs.ts).
 */
export function notImplemented(operationId: string): Handler {
  return async () => {
    throw new ApiError(501, 'not_implemented', `${operationId} is not implemented yet`, 'api_error');
  };
}
