/**
 * `encoding_format: base64` done by gw: each vector as the base64 of its little-endian float32
 * values, as OpenAI sends it. Providers are always asked for floats (and the cache and the log
 * keep floats), so every provider can answer in either format.
 */
import type { EmbeddingList } from '../providers/types.js';

function base64Of(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

export function encodedEmbeddings(list: EmbeddingList, format: 'float' | 'base64' | undefined): EmbeddingList {
  if (format !== 'base64') return list;
  return { ...list, data: list.data.map((item) => ({ ...item, embedding: typeof item.embedding === 'string' ? item.embedding : base64Of(item.embedding) })) };
}
