/** Parameter schemas shared by the checks that call a user's endpoint (webhook, log). */

/** Extra headers sent to the endpoint, e.g. its own Authorization. Names must be valid header names. */
export const headersParameter = {
  type: 'object',
  propertyNames: { pattern: "^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$" },
  additionalProperties: { type: 'string' },
  description: 'Headers sent to the endpoint with every call.',
} as const;

export const DEFAULT_TIMEOUT_MS = 3000;

export const timeoutParameter = {
  type: 'integer',
  minimum: 1,
  maximum: 60000,
  description: `Milliseconds to wait for the endpoint's answer. Default ${DEFAULT_TIMEOUT_MS}.`,
} as const;
