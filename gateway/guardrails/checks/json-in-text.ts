import { fencedBlocks } from './fenced-code.js';

/**
 * The JSON objects and arrays a text carries, most explicit first: the whole text, then fenced
 * code blocks, then the widest {...} and [...] spans (models often wrap JSON in prose).
 */
export function jsonValuesIn(text: string): Array<Record<string, unknown> | unknown[]> {
  const candidates = [text, ...fencedBlocks(text).map((block) => block.code), span(text, '{', '}'), span(text, '[', ']')];
  const values: Array<Record<string, unknown> | unknown[]> = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    const trimmed = candidate?.trim();
    if (!trimmed || seen.has(trimmed)) continue;
    seen.add(trimmed);
    try {
      const value: unknown = JSON.parse(trimmed);
      if (value !== null && typeof value === 'object') values.push(value as Record<string, unknown> | unknown[]);
    } catch {
      // Not JSON: try the next candidate.
    }
  }
  return values;
}

/** The first JSON object (not array) in the text, if any. */
export function firstJsonObjectIn(text: string): Record<string, unknown> | undefined {
  return jsonValuesIn(text).find((value): value is Record<string, unknown> => !Array.isArray(value));
}

function span(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}
