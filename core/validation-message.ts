import type { ErrorObject } from 'ajv';
import { ValidationError } from './errors.js';

/** Keywords that only say "one of the branches failed": the branch's own error says more. */
const COMBINATOR_KEYWORDS = new Set(['if', 'oneOf', 'anyOf', 'allOf', 'not']);

/** `/requestBody/messages/0/role` -> `messages[0].role`; `/header/x-gw-metadata` -> `x-gw-metadata`. */
export function paramOf(instancePath: string, extra?: string): string | null {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts[0] === 'requestBody' || parts[0] === 'query' || parts[0] === 'header' || parts[0] === 'path') parts.shift();
  if (extra !== undefined) parts.push(extra);
  let param = '';
  for (const part of parts) param += /^\d+$/.test(part) ? `[${part}]` : param ? `.${part}` : part;
  return param || null;
}

function describe(error: ErrorObject): { param: string | null; message: string } {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const param = paramOf(error.instancePath, String(params.missingProperty));
      return { param, message: `${param} is required` };
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      const param = paramOf(error.instancePath, name);
      return { param, message: `${param} is not a known field` };
    }
    case 'enum': {
      const param = paramOf(error.instancePath);
      const values = params.allowedValues as unknown[];
      const shown = values.slice(0, 12).map((v) => JSON.stringify(v)).join(', ');
      const more = values.length > 12 ? ` (and ${values.length - 12} more)` : '';
      return { param, message: `${param ?? 'value'} must be one of ${shown}${more}` };
    }
    case 'const': {
      const param = paramOf(error.instancePath);
      return { param, message: `${param ?? 'value'} must be ${JSON.stringify(params.allowedValue)}` };
    }
    case 'discriminator': {
      const param = paramOf(error.instancePath, String(params.tag));
      const options = ((error.parentSchema?.oneOf ?? []) as Array<{ properties?: Record<string, { enum?: unknown[] }> }>)
        .flatMap((branch) => branch.properties?.[String(params.tag)]?.enum ?? []);
      const allowed = options.length ? ` one of ${options.join(', ')}` : ' a known value';
      return { param, message: `${param} must be${allowed}` };
    }
    default: {
      const param = paramOf(error.instancePath);
      return { param, message: `${param ?? 'request'} ${error.message ?? 'is invalid'}` };
    }
  }
}

/** Picks the most telling ajv error and turns it into a ValidationError naming the field. */
export function toValidationError(errors: ErrorObject[] | null | undefined): ValidationError {
  const list = errors ?? [];
  const parse = list.find((e) => e.keyword === 'parse');
  if (parse) return new ValidationError(`Invalid JSON: ${parse.message}`, paramOf(parse.instancePath), 'invalid_json');
  // A failure inside an if/then rule reads best with the rule's own field; otherwise prefer the deepest error.
  // Among equally deep errors, a type mismatch says least (it is what every other oneOf branch reports).
  const concrete = list.filter((e) => !COMBINATOR_KEYWORDS.has(e.keyword));
  const rank = (e: ErrorObject) => e.instancePath.length * 2 + (e.keyword === 'type' ? 0 : 1);
  const chosen = concrete.sort((a, b) => rank(b) - rank(a))[0] ?? list[0];
  if (!chosen) return new ValidationError('The request is invalid');
  const described = describe(chosen);
  const { param } = described;
  let { message } = described;
  if (chosen.keyword === 'type') {
    const types = concrete.filter((e) => e.keyword === 'type' && e.instancePath === chosen.instancePath).map((e) => String(e.params.type));
    message = `${param ?? 'value'} must be ${[...new Set(types)].join(' or ')}`;
  }
  const rule = chosen.schemaPath.includes('/then/') ? ' (required by another field of this request)' : '';
  return new ValidationError(message + rule, param);
}
