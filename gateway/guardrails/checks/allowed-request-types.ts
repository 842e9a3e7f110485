import type { GuardrailCheck } from '../check-types.js';

type AllowedRequestTypesParams = { allowedTypes?: string[]; blockedTypes?: string[] };

/**
 * Passes when the request type (chatComplete, proxy, ...) is in `allowedTypes` (when given) and
 * not in `blockedTypes` (when given).
 */
export const allowedRequestTypesCheck: GuardrailCheck<AllowedRequestTypesParams> = {
  id: 'default.allowedRequestTypes',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      allowedTypes: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      blockedTypes: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    },
    // At least one of the two lists.
    minProperties: 1,
    additionalProperties: false,
  },
  run(params, subject) {
    const type = subject.requestType;
    if (params.blockedTypes?.includes(type)) return { verdict: false, explanation: `Request type ${type} is blocked.`, data: { requestType: type } };
    if (params.allowedTypes && !params.allowedTypes.includes(type)) return { verdict: false, explanation: `Request type ${type} is not allowed.`, data: { requestType: type } };
    return { verdict: true, explanation: `Request type ${type} is allowed.`, data: { requestType: type } };
  },
};
