/**
 * An API key's `allowed_models`: each entry a model name, `@slug/model` or `@slug` (a whole saved
 * provider), matching exactly or, ending in `*`, by prefix.
 */
import { ForbiddenError } from '../errors.js';
import type { Principal } from './principal.js';

function matches(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

/** Whether `model`, routed to the saved provider `slug` (if any), is on the list. */
export function modelAllowed(allowed: readonly string[], model: string, slug: string | undefined): boolean {
  const names = slug === undefined ? [model] : [model, `@${slug}/${model}`, `@${slug}`];
  return allowed.some((pattern) => names.some((name) => matches(pattern, name)));
}

/** Refuses a target whose model the caller's key may not use (403 model_not_allowed). */
export function assertModelAllowed(principal: Principal, model: string, slug: string | undefined): void {
  if (!principal.allowedModels || modelAllowed(principal.allowedModels, model, slug)) return;
  const named = slug === undefined ? model : `@${slug}/${model}`;
  throw new ForbiddenError(`This API key may not use model ${named}: it is not in the key's allowed_models`, 'model_not_allowed');
}

/**
 * A caller limited to some models may hand out only those: a key it creates or changes gets a list
 * of entries from its own (undefined on an update: the list is not being changed).
 */
export function assertModelsGrantable(principal: Principal, requested: readonly string[] | null | undefined, creating: boolean): void {
  const own = principal.allowedModels;
  if (!own || (requested === undefined && !creating)) return;
  const beyond = requested ? requested.filter((entry) => !own.includes(entry)) : ['every model'];
  if (beyond.length === 0) return;
  throw new ForbiddenError(`This API key is limited to its allowed_models and cannot grant ${beyond.join(', ')}`, 'model_not_grantable');
}
