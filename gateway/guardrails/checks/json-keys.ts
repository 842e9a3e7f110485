import type { GuardrailCheck } from '../check-types.js';
import { firstJsonObjectIn } from './json-in-text.js';
import { keysVerdict, operatorParameter, type SetOperator } from './operator.js';

type JsonKeysParams = { keys: string[]; operator?: SetOperator };

/** Passes when the first JSON object in the text has any, all or none (`operator`, default any) of `keys` at its top level. */
export const jsonKeysCheck: GuardrailCheck<JsonKeysParams> = {
  id: 'default.jsonKeys',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      keys: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      operator: operatorParameter,
    },
    required: ['keys'],
    additionalProperties: false,
  },
  run(params, subject) {
    const operator = params.operator ?? 'any';
    const object = firstJsonObjectIn(subject.text);
    if (!object) return { verdict: false, explanation: 'The text contains no JSON object.' };
    return keysVerdict(params.keys, object, operator, 'keys');
  },
};
