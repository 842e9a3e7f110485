/**
 * Regular expressions gw did not write: guardrail rules and `$regex` conditions in configs (an
 * inline config arrives with the request itself). They run on RE2 (re2-wasm), which matches in
 * time linear in the input, so a pattern like `(a+)+$` cannot stall the event loop for every
 * request in flight the way a backtracking engine would. RE2 has no lookaround and no
 * backreferences; such patterns are refused when saved, with the engine's reason.
 */
import { LRUCache } from 'lru-cache';
import { RE2 } from 're2-wasm';

// Patterns come from saved guardrails and configs, so a few hundred distinct ones cover every live one.
const compiled = new LRUCache<string, RE2>({ max: 500 });

/** Compiles (or reuses) a pattern; flags are any of i, m, s (RE2 always runs in unicode mode). Throws on a pattern RE2 refuses. */
export function linearRegex(pattern: string, flags = ''): RE2 {
  const key = `${flags}/${pattern}`;
  let regex = compiled.get(key);
  if (!regex) {
    try {
      regex = new RE2(pattern, flags.includes('u') ? flags : `${flags}u`);
    } catch (error) {
      throw new Error(`${(error as Error).message} (gw runs these in linear time with RE2 syntax: no lookaround, no backreferences)`, { cause: error });
    }
    compiled.set(key, regex);
  }
  return regex;
}
