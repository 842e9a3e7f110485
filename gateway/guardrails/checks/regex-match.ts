import { ValidationError } from '../../../core/errors.js';
import { linearRegex } from '../../linear-regex.js';
import type { GuardrailCheck } from '../check-types.js';
import { applyNot, notParameter } from './invert.js';

type RegexMatchParams = { rule: string; flags?: string; not?: boolean };

/** Passes when the text matches `rule` (RE2 syntax, matched in linear time: gateway/linear-regex.ts). */
export const regexMatchCheck: GuardrailCheck<RegexMatchParams> = {
  id: 'default.regexMatch',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      rule: { type: 'string', minLength: 1, description: 'Regular expression in RE2 syntax (no lookaround or backreferences), without slashes.' },
      // g and y make a RegExp stateful between calls, so they are not offered.
      flags: { type: 'string', pattern: '^[imsu]*$', description: 'Any of i, m, s, u.' },
      not: notParameter,
    },
    required: ['rule'],
    additionalProperties: false,
  },
  assertParameters(params, param) {
    try {
      linearRegex(params.rule, params.flags);
    } catch (error) {
      throw new ValidationError(`${param}.rule is not a valid regular expression: ${(error as Error).message}`, `${param}.rule`);
    }
  },
  run(params, subject) {
    const match = linearRegex(params.rule, params.flags).exec(subject.text);
    const result = match
      ? { verdict: true, explanation: 'The text matches the pattern.', data: { match: match[0], index: match.index } }
      : { verdict: false, explanation: 'The text does not match the pattern.', data: { match: null } };
    return applyNot(result, params.not);
  },
};
