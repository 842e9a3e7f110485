/**
 * Checks a config in the browser against the Config schema of gw's spec before it is saved: the
 * validator is compiled from generated/openapi.json at build time (build/config-validator-plugin.ts).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import compiledConfigValidator from 'virtual:config-validator';

export const validateConfig: ValidateFunction = compiledConfigValidator;
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
export function configProblem(text: string, validate: ValidateFunction = validateConfig): string | null {
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
