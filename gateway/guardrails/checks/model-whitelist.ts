import type { GuardrailCheck } from '../check-types.js';

type ModelWhitelistParams = { models: string[] };

/** Passes when the request's `model` is one of `models` (exact names). Input only: it guards what is called. */
export const modelWhitelistCheck: GuardrailCheck<ModelWhitelistParams> = {
  id: 'default.modelWhitelist',
  phases: ['input'],
  parametersSchema: {
    type: 'object',
    properties: { models: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } } },
    required: ['models'],
    additionalProperties: false,
  },
  run(params, subject) {
    const model = typeof subject.request.model === 'string' ? subject.request.model : undefined;
    const verdict = model !== undefined && params.models.includes(model);
    return { verdict, explanation: `Model ${model ?? '(none)'} is ${verdict ? '' : 'not '}on the allow-list.`, data: { model: model ?? null } };
  },
};
