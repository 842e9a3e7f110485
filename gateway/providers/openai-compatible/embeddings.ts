/**
 * Embeddings on the OpenAI wire (`POST <base>/embeddings`). gw always asks for float vectors and
 * encodes base64 itself when the client wants it, so every provider answers the same way.
 */
import type { EmbeddingList, EmbeddingRequest } from '../types.js';

type Json = Record<string, unknown>;

export function embeddingBody(request: EmbeddingRequest, dropFields: readonly string[]): Json {
  const body: Json = { ...request, encoding_format: 'float' };
  for (const field of dropFields) delete body[field];
  return body;
}

function count(value: unknown): number {
  return Number.isInteger(value) ? (value as number) : 0;
}

export function normalizeEmbeddingList(body: unknown, model: string): EmbeddingList {
  const json = (body ?? {}) as Json;
  const data = Array.isArray(json.data) ? (json.data as Json[]) : [];
  const usage = (json.usage ?? {}) as Json;
  const prompt = count(usage.prompt_tokens);
  return {
    object: 'list',
    data: data
      .map((item, position) => ({ object: 'embedding' as const, index: Number.isInteger(item.index) ? (item.index as number) : position, embedding: Array.isArray(item.embedding) ? (item.embedding as number[]) : [] }))
      .sort((a, b) => a.index - b.index),
    model: typeof json.model === 'string' ? json.model : model,
    usage: { prompt_tokens: prompt, total_tokens: count(usage.total_tokens) || prompt },
  };
}
