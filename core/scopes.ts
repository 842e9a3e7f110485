import { loadSpec } from './spec-document.js';

let all: readonly string[] | undefined;

/** Every scope the spec defines (components.schemas.Scope): what the bootstrap admin key carries. */
export function allScopes(): readonly string[] {
  all ??= Object.freeze(
    ((loadSpec().components?.schemas?.Scope as { enum?: string[] } | undefined)?.enum ?? []).slice(),
  );
  return all;
}
