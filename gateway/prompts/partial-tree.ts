/**
 * Loads every partial a template includes, partials of partials included, each once, and refuses
 * an unknown partial or a cycle (a includes b includes a) with a 400 naming it.
 */
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { parseTemplate, partialNames, type TemplateToken } from './template-tokens.js';

/** A partial's template by the name a template uses, or undefined when there is none. */
export type PartialLoader = (name: string) => Promise<string | undefined>;

/** Deeper than any real prompt: stops a runaway chain (a1 > a2 > ... ) that is not a cycle. */
const MAX_DEPTH = 32;

export async function loadPartials(roots: TemplateToken[][], load: PartialLoader): Promise<Map<string, string>> {
  const partials = new Map<string, string>();
  const tokens = new Map<string, TemplateToken[]>();

  const visit = async (name: string, path: string[]): Promise<void> => {
    if (path.includes(name)) {
      const cycle = [...path.slice(path.indexOf(name)), name].join(' -> ');
      throw new ValidationError(`Partials include each other in a cycle: ${cycle}`, `partials.${name}`, 'partial_cycle');
    }
    if (path.length >= MAX_DEPTH) throw new ValidationError(`Partials nest deeper than ${MAX_DEPTH} at ${name}`, `partials.${name}`, 'partial_too_deep');
    if (!tokens.has(name)) {
      let template: string | undefined;
      try {
        template = await load(name);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
      if (template === undefined) throw new ValidationError(`The template includes {{>${name}}}, but there is no partial ${name} here`, `partials.${name}`, 'unknown_partial');
      partials.set(name, template);
      tokens.set(name, parseTemplate(template, `partials.${name}`));
    }
    for (const child of partialNames(tokens.get(name)!)) await visit(child, [...path, name]);
  };

  for (const root of roots) for (const name of partialNames(root)) await visit(name, []);
  return partials;
}
