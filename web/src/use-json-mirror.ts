import { useState } from 'react';
import { parseJson } from './api/spec-validation';

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * A value edited both as a form and as JSON text, kept in step: a form change rewrites the text;
 * text that parses to the right shape replaces the value; text that does not leaves the value as it
 * last was and says why (`broken`), so the form can show the last good state.
 */
export function useJsonMirror<T>(initial: T, shape: (value: unknown) => string | null) {
  const [value, setValue] = useState<T>(initial);
  const [text, setText] = useState(() => pretty(initial));
  const parsed = parseJson(text);
  const broken = 'problem' in parsed ? parsed.problem : shape(parsed.value);
  return {
    value,
    text,
    broken,
    fromForm: (next: T) => {
      setValue(next);
      setText(pretty(next));
    },
    fromJson: (next: string) => {
      setText(next);
      const read = parseJson(next);
      if ('value' in read && shape(read.value) === null) setValue(read.value as T);
    },
  };
}

export const isObject = (value: unknown) => (value && typeof value === 'object' && !Array.isArray(value) ? null : 'The JSON must be an object');
export const isArray = (value: unknown) => (Array.isArray(value) ? null : 'The JSON must be a list');
