/**
 * Embedding inputs for providers that embed text only (all but the OpenAI wire): the request's
 * strings as a list, and a four-characters-a-token estimate for providers that report no usage.
 */
import { ValidationError } from '../../core/errors.js';
import type { EmbeddingRequest } from './types.js';

export function textInputs(request: EmbeddingRequest, provider: string): string[] {
  const input = request.input;
  if (typeof input === 'string') return [input];
  if (input.every((item): item is string => typeof item === 'string')) return input;
  throw new ValidationError(`${provider} embeds text only: token-id input needs an OpenAI-wire provider`, 'input', 'invalid_input');
}

export function estimatedInputTokens(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
}

/** An OpenAI embeddings list from float vectors in input order. */
export function embeddingList(vectors: number[][], model: string, promptTokens: number) {
  return {
    object: 'list' as const,
    data: vectors.map((embedding, index) => ({ object: 'embedding' as const, index, embedding })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
