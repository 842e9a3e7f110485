/**
 * `encoding_format: base64` done by gw: each vector as the base64 of its little-endian float32
 * values, as OpenAI sends it. Providers are always asked for floats (and the cache keeps floats),
 * so every provider can answer in either format.
 */
import { endianness } from 'node:os';
import type { EmbeddingList } from '../providers/types.js';

const LITTLE_ENDIAN = endianness() === 'LE';

function base64Of(vector: number[]): string {
  // The float32 values' own bytes, converted in one native call rather than one write per float.
  const floats = Float32Array.from(vector);
  const bytes = Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength);
  if (!LITTLE_ENDIAN) bytes.swap32();
  return bytes.toString('base64');
}

export function encodedEmbeddings(list: EmbeddingList, format: 'float' | 'base64' | undefined): EmbeddingList {
  if (format !== 'base64') return list;
  // Named fields, not a spread: a list kept as its upstream text (WireEmbeddingList) reads its vectors on demand.
  const data = list.data.map((item) => ({ object: item.object, index: item.index, embedding: typeof item.embedding === 'string' ? item.embedding : base64Of(item.embedding) }));
  return { object: list.object, data, model: list.model, usage: list.usage };
}
