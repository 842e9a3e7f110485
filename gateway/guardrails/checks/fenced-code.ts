/** Markdown fenced code blocks (``` or ~~~), as models write code in answers. */
export interface FencedBlock {
  /** The info string's first word, lower-cased; '' when the fence names no language. */
  language: string;
  code: string;
}

// The closing fence repeats the opening one (\1), so a ~~~ block may contain ``` and the other way round.
const FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;

export function fencedBlocks(text: string): FencedBlock[] {
  return [...text.matchAll(FENCE)].map((match) => ({ language: (match[2] ?? '').toLowerCase(), code: match[3] ?? '' }));
}
