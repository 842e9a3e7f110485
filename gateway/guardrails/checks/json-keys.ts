import type { GuardrailCheck } from '../check-types.js';
import { firstJsonObjectIn } from './json-in-text.js';
import { operatorParameter, satisfies, type SetOperator } from './operator.js';

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
    const found = params.keys.filter((key) => Object.hasOwn(object, key));
    const missing = params.keys.filter((key) => !Object.hasOwn(object, key));
    const verdict = satisfies(operator, found.length, params.keys.length);
    return {
      verdict,
      explanation: `${found.length} of ${params.keys.length} keys present; operator ${operator} ${verdict ? 'holds' : 'fails'}.`,
      data: { found, missing },
    };
  },
};
