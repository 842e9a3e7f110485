/**
 * Checks a config in the browser against the Config schema of gw's own spec (fetched from
 * /openapi.json, so it is always the schema the running gw holds) before it is saved.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';

type Json = Record<string, unknown>;

/** A validator for components.schemas.Config of an OpenAPI document. */
export function configValidator(openapi: Json): ValidateFunction {
  // strict: false because the spec carries OpenAPI keywords (discriminator, x-gw-*); gw checks formats itself.
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  const components = (openapi as { components?: { schemas?: Json } }).components ?? {};
  ajv.addSchema({ $id: 'gw-spec', components });
  return ajv.compile({ $ref: 'gw-spec#/components/schemas/Config' });
}

function describe(error: ErrorObject): string {
  const where = error.instancePath ? `config${error.instancePath.replace(/\//g, '.')}` : 'config';
  if (error.keyword === 'enum') return `${where} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    const params = error.params as { additionalProperty?: string; unevaluatedProperty?: string };
    return `${where} has an unknown key "${params.additionalProperty ?? params.unevaluatedProperty}"`;
  }
  return `${where} ${error.message ?? 'is not valid'}`;
}

/** null when the text is a valid config; else the message to show (JSON syntax first, then the schema). */
export function configProblem(text: string, validate: ValidateFunction): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `Not valid JSON: ${(error as Error).message}`;
  }
  if (validate(value)) return null;
  const errors = validate.errors ?? [];
  // The most specific error (deepest path) says the most.
  const best = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  return best ? describe(best) : 'The config does not match the config schema';
}
