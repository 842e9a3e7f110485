import type { GuardrailCheck } from '../check-types.js';
import { applyNot, notParameter } from './invert.js';

type EndsWithParams = { suffix: string; not?: boolean };

/** Passes when the text, trailing whitespace aside, ends with `suffix` (case-sensitive). */
export const endsWithCheck: GuardrailCheck<EndsWithParams> = {
  id: 'default.endsWith',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: { suffix: { type: 'string', minLength: 1 }, not: notParameter },
    required: ['suffix'],
    additionalProperties: false,
  },
  run(params, subject) {
    const verdict = subject.text.trimEnd().endsWith(params.suffix);
    return applyNot({ verdict, explanation: `The text ${verdict ? 'ends' : 'does not end'} with ${JSON.stringify(params.suffix)}.` }, params.not);
  },
};
