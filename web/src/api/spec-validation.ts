/**
 * Checks what the console is about to send against the spec's own schemas, in the browser, so a
 * mistake is named before anything reaches gw. The validators are compiled from
 * generated/openapi.json at build time (build/spec-validators-plugin.ts).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import compiled from 'virtual:spec-validators';
import type { ValidatedSchema } from './validated-schemas';

export function validatorFor(name: ValidatedSchema): ValidateFunction {
  const validate = compiled[name];
  if (!validate) throw new Error(`no compiled validator for ${name}`);
  return validate;
}

/** One ajv error as a sentence naming the field (under `root`). */
export function describe(error: ErrorObject, root: string): string {
  const path = error.instancePath.slice(1).replace(/\//g, '.');
  const where = [root, path].filter(Boolean).join('.') || 'the body';
  if (error.keyword === 'enum') return `${where} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    const params = error.params as { additionalProperty?: string; unevaluatedProperty?: string };
    return `${where} has an unknown key "${params.additionalProperty ?? params.unevaluatedProperty}"`;
  }
  if (error.keyword === 'required') return `${where} needs "${(error.params as { missingProperty: string }).missingProperty}"`;
  return `${where} ${error.message ?? 'is not valid'}`;
}

/** null when `value` matches the schema; else the message to show, naming the field (under `root`). */
export function schemaProblem(value: unknown, validate: ValidateFunction, root = ''): string | null {
  if (validate(value)) return null;
  const errors = validate.errors ?? [];
  // The most specific error (deepest path) says the most.
  const best = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  return best ? describe(best, root) : 'does not match the schema';
}

/** The value of JSON text, or the message saying why it is not JSON. */
export function parseJson(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
}

/** null when the text is a valid config; else the message to show (JSON syntax first, then the schema). */
export function configProblem(text: string, validate: ValidateFunction = validatorFor('Config')): string | null {
  const parsed = parseJson(text);
  if ('problem' in parsed) return parsed.problem;
  return schemaProblem(parsed.value, validate, 'config');
}

/** null when `body` is what the spec's schema `name` accepts; else the message to show. */
export function bodyProblem(name: ValidatedSchema, body: unknown): string | null {
  return schemaProblem(body, validatorFor(name));
}
