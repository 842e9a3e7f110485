import type { GuardrailCheck } from '../check-types.js';
import { operatorParameter, satisfies, type SetOperator } from './operator.js';

type ContainsParams = { words: string[]; operator?: SetOperator };

const SYNTAX = /[\\^$.*+?()[\]{}|/]/g;

/** A word or phrase as a whole-word, case-insensitive pattern; any run of spaces in a phrase matches any whitespace. */
function wholeWord(phrase: string): RegExp {
  const body = phrase.trim().replace(SYNTAX, '\\$&').replace(/\s+/g, '\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}_])${body}(?![\\p{L}\\p{N}_])`, 'iu');
}

/** Passes when the text contains any, all or none (`operator`, default any) of the words or phrases. */
export const containsCheck: GuardrailCheck<ContainsParams> = {
  id: 'default.contains',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      words: { type: 'array', minItems: 1, items: { type: 'string', pattern: '\\S' }, description: 'Words or phrases, matched as whole words, ignoring case.' },
      operator: operatorParameter,
    },
    required: ['words'],
    additionalProperties: false,
  },
  run(params, subject) {
    const operator = params.operator ?? 'any';
    const found = params.words.filter((word) => wholeWord(word).test(subject.text));
    const missing = params.words.filter((word) => !found.includes(word));
    const verdict = satisfies(operator, found.length, params.words.length);
    return {
      verdict,
      explanation: `${found.length} of ${params.words.length} words found; operator ${operator} ${verdict ? 'holds' : 'fails'}.`,
      data: { found, missing },
    };
  },
};
