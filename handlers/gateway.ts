import { ApiError } from '../server/errors.js';
import type { Handler } from './types.js';

// Filled in by the gateway work (issue 3); until then the routes answer 501 in the error body.
export const createChatCompletion: Handler = async () => {
  throw new ApiError(501, 'not_implemented', 'Chat completions are not available yet', 'api_error');
};

export const listModels: Handler = async () => {
  throw new ApiError(501, 'not_implemented', 'The models list is not available yet', 'api_error');
};
