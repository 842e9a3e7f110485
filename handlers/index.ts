import * as apiKeys from './api-keys/index.js';
import * as gateway from './gateway.js';
import * as system from './system.js';
import type { Handler } from './types.js';

/** operationId -> handler, for every operation in the spec (checked at boot). */
export const handlers: Record<string, Handler> = {
  ...system,
  ...gateway,
  ...apiKeys,
};
