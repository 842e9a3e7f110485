import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { LRUCache } from 'lru-cache';
import { ValidationError } from '../../../core/errors.js';
import type { GuardrailCheck } from '../check-types.js';
import { applyNot, notParameter } from './invert.js';
import { jsonValuesIn } from './json-in-text.js';

type JsonSchemaParams = { schema: Record<string, unknown>; not?: boolean };

// User schemas are not ours to police for style, so strict mode is off; formats are on.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

// Compiled once per distinct schema, keyed by its JSON text. A user's $id is dropped so two guardrails
// may reuse one without clashing in the shared ajv instance; an evicted schema leaves ajv's own cache too.
const validators = new LRUCache<string, { validate: ValidateFunction; schema: Record<string, unknown> }>({
  max: 200,
  dispose: (entry) => ajv.removeSchema(entry.schema),
});

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let entry = validators.get(key);
  if (!entry) {
    const { $id: _ignored, ...withoutId } = schema;
    entry = { validate: ajv.compile(withoutId), schema: withoutId };
    validators.set(key, entry);
  }
  return entry.validate;
}

/** Passes when a JSON object or array in the text validates against `schema` (JSON Schema 2020-12). */
export const jsonSchemaCheck: GuardrailCheck<JsonSchemaParams> = {
  id: 'default.jsonSchema',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      schema: { type: 'object', description: 'A JSON Schema (draft 2020-12).' },
      not: notParameter,
    },
    required: ['schema'],
    additionalProperties: false,
  },
  assertParameters(params, param) {
    try {
      validatorFor(params.schema);
    } catch (error) {
      throw new ValidationError(`${param}.schema is not a valid JSON schema: ${(error as Error).message}`, `${param}.schema`);
    }
  },
  run(params, subject) {
    const validate = validatorFor(params.schema);
    const values = jsonValuesIn(subject.text);
    if (values.length === 0) return applyNot({ verdict: false, explanation: 'The text contains no JSON object or array.' }, params.not);
    const matching = values.find((value) => validate(value));
    if (matching !== undefined) return applyNot({ verdict: true, explanation: 'The JSON in the text matches the schema.', data: { json: matching } }, params.not);
    validate(values[0]);
    const errors = (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`);
    return applyNot({ verdict: false, explanation: `The JSON in the text does not match the schema: ${errors.join('; ')}`, data: { errors } }, params.not);
  },
};
