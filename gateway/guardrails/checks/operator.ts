/** The any/all/none operator of checks that look for several things at once (words, JSON keys, metadata keys). */
export type SetOperator = 'any' | 'all' | 'none';

export const operatorParameter = { type: 'string', enum: ['any', 'all', 'none'], description: 'any: at least one is present; all: every one is; none: not one is.' } as const;

/** Whether `found` (a subset of the wanted items) satisfies the operator. */
export function satisfies(operator: SetOperator, found: number, wanted: number): boolean {
  if (operator === 'any') return found > 0;
  if (operator === 'all') return found === wanted;
  return found === 0;
}
