import { ValidationError } from '../../core/errors.js';
import type { Chunking } from '../../store/repositories/vector-stores.js';

/** OpenAI's `auto` strategy. */
export const AUTO_CHUNKING: Chunking = { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 };

type ChunkingRequest = { type: 'auto' } | { type: 'static'; static: Chunking } | undefined;

/** The spec bounds each number; the overlap against the size is a cross-field rule, checked here. */
export function chunkingOf(request: ChunkingRequest, param = 'chunking_strategy'): Chunking {
  if (!request || request.type === 'auto') return AUTO_CHUNKING;
  const { max_chunk_size_tokens: max, chunk_overlap_tokens: overlap } = request.static;
  if (overlap > max / 2) throw new ValidationError(`${param}.static.chunk_overlap_tokens must not exceed half of max_chunk_size_tokens (${max})`, `${param}.static.chunk_overlap_tokens`);
  return { max_chunk_size_tokens: max, chunk_overlap_tokens: overlap };
}

/**
 * Splits text into chunks of at most `max` tokens, each starting `max - overlap` tokens after the
 * one before. A token is one word (a run of non-space characters): chunks keep the text between
 * their words as it was (line breaks included).
 */
export function chunkText(text: string, chunking: Chunking): string[] {
  const words = [...text.matchAll(/\S+/g)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
  const step = chunking.max_chunk_size_tokens - chunking.chunk_overlap_tokens;
  const chunks: string[] = [];
  for (let first = 0; first < words.length; first += step) {
    const last = Math.min(first + chunking.max_chunk_size_tokens, words.length) - 1;
    chunks.push(text.slice(words[first]!.start, words[last]!.end));
    if (last === words.length - 1) break;
  }
  return chunks;
}
