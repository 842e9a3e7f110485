import type { GuardrailCheck } from '../check-types.js';

type NotNullParams = Record<string, never>;

/** Passes when the answer has text: not null, not empty, not only whitespace. Output only. */
export const notNullCheck: GuardrailCheck<NotNullParams> = {
  id: 'default.notNull',
  phases: ['output'],
  parametersSchema: { type: 'object', properties: {}, additionalProperties: false },
  run(_params, subject) {
    const verdict = subject.text.trim() !== '';
    return { verdict, explanation: verdict ? 'The answer has content.' : 'The answer is empty.' };
  },
};
