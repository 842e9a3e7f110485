import type { CheckVerdict } from '../check-types.js';

/** The any/all/none operator of checks that look for several things at once (words, JSON keys, metadata keys). */
export type SetOperator = 'any' | 'all' | 'none';

export const operatorParameter = { type: 'string', enum: ['any', 'all', 'none'], description: 'any: at least one is present; all: every one is; none: not one is.' } as const;

/** Whether `found` (a subset of the wanted items) satisfies the operator. */
export function satisfies(operator: SetOperator, found: number, wanted: number): boolean {
  if (operator === 'any') return found > 0;
  if (operator === 'all') return found === wanted;
  return found === 0;
}

/** The verdict of a key-presence check (JSON keys, metadata keys): which of `keys` `object` has at its top level, against the operator. */
export function keysVerdict(keys: string[], object: object, operator: SetOperator, what: string): CheckVerdict {
  const found = keys.filter((key) => Object.hasOwn(object, key));
  const missing = keys.filter((key) => !Object.hasOwn(object, key));
  const verdict = satisfies(operator, found.length, keys.length);
  return {
    verdict,
    explanation: `${found.length} of ${keys.length} ${what} present; operator ${operator} ${verdict ? 'holds' : 'fails'}.`,
    data: { found, missing },
  };
}
