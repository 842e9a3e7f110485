import { ValidationError } from '../../../core/errors.js';
import type { GuardrailCheck } from '../check-types.js';
import { applyNot, notParameter } from './invert.js';

type RangeParams = Record<string, number | boolean | undefined>;

const words = new Intl.Segmenter(undefined, { granularity: 'word' });
const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

// Intl.Segmenter follows Unicode text segmentation, so scripts without spaces (CJK) count sensibly too.
function countWords(text: string): number {
  let count = 0;
  for (const segment of words.segment(text)) if (segment.isWordLike) count += 1;
  return count;
}

function countSentences(text: string): number {
  let count = 0;
  for (const segment of sentences.segment(text)) if (/\S/.test(segment.segment)) count += 1;
  return count;
}

/** User-perceived characters: an emoji with modifiers or a letter with combining accents counts once. */
function countCharacters(text: string): number {
  let count = 0;
  for (const _ of graphemes.segment(text)) count += 1;
  return count;
}

/** A check that passes when a count of the text lies within [min, max] (both inclusive, both optional). */
function rangeCheck(id: string, unit: string, minKey: string, maxKey: string, count: (text: string) => number): GuardrailCheck<RangeParams> {
  return {
    id,
    phases: ['input', 'output'],
    parametersSchema: {
      type: 'object',
      properties: {
        [minKey]: { type: 'integer', minimum: 0, description: `Fewest ${unit} allowed (inclusive). Default 0.` },
        [maxKey]: { type: 'integer', minimum: 0, description: `Most ${unit} allowed (inclusive). Default: no limit.` },
        not: notParameter,
      },
      additionalProperties: false,
    },
    assertParameters(params, param) {
      const min = params[minKey];
      const max = params[maxKey];
      if (typeof min === 'number' && typeof max === 'number' && min > max) {
        throw new ValidationError(`${param}.${minKey} (${min}) is greater than ${param}.${maxKey} (${max})`, `${param}.${minKey}`);
      }
    },
    run(params, subject) {
      const min = typeof params[minKey] === 'number' ? params[minKey] : 0;
      const max = typeof params[maxKey] === 'number' ? params[maxKey] : Infinity;
      const found = count(subject.text);
      const verdict = found >= min && found <= max;
      const range = `${min} to ${max === Infinity ? 'any number of' : max}`;
      return applyNot({ verdict, explanation: `${found} ${unit}; allowed ${range} ${unit}.`, data: { count: found } }, params.not === true);
    },
  };
}

export const wordCountCheck = rangeCheck('default.wordCount', 'words', 'minWords', 'maxWords', countWords);
export const sentenceCountCheck = rangeCheck('default.sentenceCount', 'sentences', 'minSentences', 'maxSentences', countSentences);
export const characterCountCheck = rangeCheck('default.characterCount', 'characters', 'minCharacters', 'maxCharacters', countCharacters);
