import type { GuardrailCheck } from '../check-types.js';
import { keysVerdict, operatorParameter, type SetOperator } from './operator.js';

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
    return keysVerdict(params.metadataKeys, subject.metadata, operator, 'metadata keys');
  },
};
