import type { GuardrailCheck } from '../check-types.js';
import { applyNot, notParameter } from './invert.js';

type LetterCaseParams = { not?: boolean };

/**
 * Passes when no letter of the text is in the other case. Letters without case (digits, CJK)
 * do not count, so a text without cased letters passes both checks.
 */
function letterCaseCheck(id: string, wanted: 'upper' | 'lower', otherCase: RegExp): GuardrailCheck<LetterCaseParams> {
  return {
    id,
    phases: ['input', 'output'],
    parametersSchema: { type: 'object', properties: { not: notParameter }, additionalProperties: false },
    run(params, subject) {
      const offending = subject.text.match(otherCase) ?? [];
      const result = offending.length === 0
        ? { verdict: true, explanation: `All letters are ${wanted} case.` }
        : { verdict: false, explanation: `${offending.length} letters are not ${wanted} case.`, data: { offending: offending.slice(0, 20) } };
      return applyNot(result, params.not);
    },
  };
}

export const allUppercaseCheck = letterCaseCheck('default.alluppercase', 'upper', /[\p{Ll}]/gu);
// Title-case letters (Dž) are not lower case either.
export const allLowercaseCheck = letterCaseCheck('default.alllowercase', 'lower', /[\p{Lu}\p{Lt}]/gu);
