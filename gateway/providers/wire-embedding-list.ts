/**
 * An OpenAI embeddings list kept as the JSON text it came in (an upstream's answer, or the cache's
 * copy of one), so gw can answer, cache and log it without turning every float into a number and
 * back: that work was most of an embeddings call's cost. The text is read once, cheaply: each
 * vector is checked to be a JSON number list and counted, and only the rest of the document (the
 * vectors cut out) is parsed. The vectors themselves are parsed only if something asks for them
 * (`data`: base64 encoding, a vector store, a batch line).
 */
import { JsonText } from '../../core/json-text.js';
import type { EmbeddingList } from './types.js';

/** What the request log keeps of one vector: its position and size, not its values. */
export interface EmbeddingSummary {
  object: 'embedding';
  index: number;
  dimensions: number;
}

export class WireEmbeddingList extends JsonText implements EmbeddingList {
  readonly object = 'list' as const;
  private vectors?: EmbeddingList['data'];

  constructor(
    text: string,
    bytes: Buffer | undefined,
    readonly model: string,
    readonly usage: EmbeddingList['usage'],
    readonly items: readonly EmbeddingSummary[],
  ) {
    super(text, bytes);
  }

  get data(): EmbeddingList['data'] {
    this.vectors ??= (JSON.parse(this.text) as EmbeddingList).data;
    return this.vectors;
  }
}

// One JSON number, and a vector: numbers separated by commas, up to its closing bracket, with
// JSON's whitespace only (not \s: the vector is forwarded unparsed, so it must be valid JSON as it
// is). The pattern cannot match one text two ways, so it runs in one pass.
const NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
const SPACE = '[ \\t\\r\\n]*';
const VECTOR_BODY = new RegExp(`${SPACE}(?:${NUMBER}(?:${SPACE},${SPACE}${NUMBER})*)?${SPACE}\\]`, 'y');
const VECTOR_START = /"embedding"\s*:\s*\[/g;

type Json = Record<string, unknown>;

function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

/** Commas between `from` and `to`, plus one: a vector's size (0 for `[]`; the vector is known to be valid). */
function dimensionsBetween(text: string, from: number, to: number): number {
  let first = from;
  while (first < to && ' \t\r\n'.includes(text[first]!)) first += 1;
  if (first === to) return 0;
  let count = 1;
  for (let at = text.indexOf(',', first); at !== -1 && at < to; at = text.indexOf(',', at + 1)) count += 1;
  return count;
}

/**
 * The list, when `text` is an OpenAI embeddings list gw would answer as it is: float vectors in
 * index order, a model, and usage whose total is set. Anything else (base64 strings, a missing
 * model or total, vectors out of order, text that is not JSON) gives undefined, and the caller
 * parses and normalises it the ordinary way. Unknown fields are kept: the answer is forwarded whole.
 * `bytes`, the text's UTF-8 bytes as they came, are what the client is sent.
 */
export function readWireEmbeddingList(text: string, bytes?: Buffer): WireEmbeddingList | undefined {
  // The text with each vector replaced by its size: small enough to parse at no cost.
  const parts: string[] = [];
  const sizes: number[] = [];
  let copied = 0;
  VECTOR_START.lastIndex = 0;
  for (let found = VECTOR_START.exec(text); found; found = VECTOR_START.exec(text)) {
    const open = VECTOR_START.lastIndex;
    VECTOR_BODY.lastIndex = open;
    if (!VECTOR_BODY.test(text)) return undefined;
    const close = VECTOR_BODY.lastIndex;
    const size = dimensionsBetween(text, open, close - 1);
    parts.push(text.slice(copied, open - 1), String(size));
    sizes.push(size);
    copied = close;
    VECTOR_START.lastIndex = close;
  }
  parts.push(text.slice(copied));
  let skeleton: Json;
  try {
    skeleton = JSON.parse(parts.join('')) as Json;
  } catch {
    return undefined;
  }
  if (skeleton === null || typeof skeleton !== 'object' || skeleton.object !== 'list' || typeof skeleton.model !== 'string') return undefined;
  const usage = skeleton.usage as Json | undefined;
  if (!usage || !isCount(usage.prompt_tokens) || !isCount(usage.total_tokens)) return undefined;
  // gw reports a missing total as the prompt tokens: such an answer is not forwarded as it is.
  if (usage.total_tokens === 0 && usage.prompt_tokens !== 0) return undefined;
  const data = skeleton.data;
  if (!Array.isArray(data) || data.length !== sizes.length) return undefined;
  const items: EmbeddingSummary[] = [];
  for (const [position, item] of (data as Json[]).entries()) {
    // Each item's vector must be the one cut out here, in order (not a look-alike inside a string).
    if (item === null || typeof item !== 'object' || item.object !== 'embedding' || item.embedding !== sizes[position] || !isCount(item.index)) return undefined;
    if (position > 0 && item.index < items[position - 1]!.index) return undefined;
    items.push({ object: 'embedding', index: item.index, dimensions: sizes[position]! });
  }
  return new WireEmbeddingList(text, bytes, skeleton.model, { prompt_tokens: usage.prompt_tokens, total_tokens: usage.total_tokens }, items);
}

/**
 * An embeddings answer as the request log keeps it: the list with each vector replaced by its
 * size (`dimensions`). Vectors are of no use in a log and were most of its cost.
 */
export function loggedEmbeddingList(list: EmbeddingList): Omit<EmbeddingList, 'data'> & { data: readonly EmbeddingSummary[] } {
  const data =
    list instanceof WireEmbeddingList
      ? list.items
      : list.data.map((item) => ({ object: 'embedding' as const, index: item.index, dimensions: typeof item.embedding === 'string' ? Buffer.byteLength(item.embedding, 'base64') / 4 : item.embedding.length }));
  return { object: 'list', data, model: list.model, usage: list.usage };
}
