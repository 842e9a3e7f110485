import type { GuardrailCheck } from '../check-types.js';
import { operatorParameter, satisfies, type SetOperator } from './operator.js';

type RequiredMetadataKeysParams = { metadataKeys: string[]; operator?: SetOperator };

/** Passes when the request's x-gw-metadata has all (default), any or none (`operator`) of `metadataKeys`. */
export const requiredMetadataKeysCheck: GuardrailCheck<RequiredMetadataKeysParams> = {
  id: 'default.requiredMetadataKeys',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      metadataKeys: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      operator: operatorParameter,
    },
    required: ['metadataKeys'],
    additionalProperties: false,
  },
  run(params, subject) {
    const operator = params.operator ?? 'all';
    const found = params.metadataKeys.filter((key) => Object.hasOwn(subject.metadata, key));
    const missing = params.metadataKeys.filter((key) => !Object.hasOwn(subject.metadata, key));
    const verdict = satisfies(operator, found.length, params.metadataKeys.length);
    return {
      verdict,
      explanation: `${found.length} of ${params.metadataKeys.length} metadata keys present; operator ${operator} ${verdict ? 'holds' : 'fails'}.`,
      data: { found, missing },
    };
  },
};
