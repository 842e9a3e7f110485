import type { CheckVerdict } from '../check-types.js';

/** The `not` parameter shared by checks whose condition a user may want reversed ("must NOT match"). */
export const notParameter = { type: 'boolean', description: 'Reverse the verdict: pass when the condition does not hold.' } as const;

/** Applies `not`: the verdict flips, the explanation says so, details stay as they were. */
export function applyNot(result: CheckVerdict, not: boolean | undefined): CheckVerdict {
  if (!not) return result;
  return { ...result, verdict: !result.verdict, explanation: `not: ${result.explanation ?? ''}`.trim() };
}
