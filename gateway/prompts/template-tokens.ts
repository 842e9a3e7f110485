/**
 * What a mustache template needs, read from its parsed tokens (mustache's own parser, cached by
 * it): the partials it includes, and the variables it reads outside any section. Inside a section
 * (`{{#items}}...{{/items}}`) a name may come from the item, so only top-level reads are required.
 */
import Mustache from 'mustache';
import { ValidationError } from '../../core/errors.js';

type Token = [string, string, number, number, Token[]?, ...unknown[]];

export function parseTemplate(template: string, param: string): Token[] {
  try {
    return Mustache.parse(template) as unknown as Token[];
  } catch (error) {
    throw new ValidationError(`${param} is not a valid mustache template: ${(error as Error).message}`, param, 'invalid_template');
  }
}

/** Names of the partials a template includes directly (`{{>name}}`), in order of first use. */
export function partialNames(tokens: Token[]): string[] {
  const names = new Set<string>();
  const walk = (list: Token[]) => {
    for (const token of list) {
      if (token[0] === '>') names.add(token[1]);
      else if ((token[0] === '#' || token[0] === '^') && token[4]) walk(token[4]);
    }
  };
  walk(tokens);
  return [...names];
}

function has(variables: Record<string, unknown>, name: string): boolean {
  if (name === '.') return true;
  let value: unknown = variables;
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return false;
    value = (value as Record<string, unknown>)[part];
  }
  return true;
}

/**
 * The first top-level variable the template (and the partials it includes at the top level)
 * reads that `variables` lacks, or undefined. Partials are already known to exist and to be acyclic.
 */
export function missingVariable(tokens: Token[], variables: Record<string, unknown>, partialTokens: (name: string) => Token[]): string | undefined {
  const walk = (list: Token[]): string | undefined => {
    for (const token of list) {
      const [type, name] = token;
      if ((type === 'name' || type === '&') && !has(variables, name)) return name;
      if (type === '>') {
        const missing = walk(partialTokens(name));
        if (missing !== undefined) return missing;
      }
    }
    return undefined;
  };
  return walk(tokens);
}

export type { Token as TemplateToken };
