/**
 * Bedrock embeddings through InvokeModel (`/model/{id}/invoke`). Cohere embed models take Cohere's
 * shape (../cohere/embed.ts). Titan text embeddings take one `inputText` a call, so Titan takes
 * one input; it answers `embedding` with `inputTextTokenCount`.
 */
import { UpstreamError, ValidationError } from '../../../core/errors.js';
import { fromCohereEmbed, cohereEmbedBody } from '../cohere/embed.js';
import { embeddingList, textInputs } from '../embedding-inputs.js';
import type { EmbeddingList, EmbeddingRequest } from '../types.js';

type Json = Record<string, unknown>;

function isCohere(model: string): boolean {
  return /(^|\.)cohere\.embed/.test(model);
}

export function bedrockEmbedBody(request: EmbeddingRequest): Json {
  const texts = textInputs(request, 'bedrock');
  if (isCohere(request.model)) {
    const { output_dimension: _unsupported, ...body } = cohereEmbedBody(request, texts);
    return body;
  }
  if (texts.length !== 1) throw new ValidationError('Titan embedding models on bedrock embed one text a call: send one input', 'input', 'invalid_input');
  return { inputText: texts[0], ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}) };
}

export function fromBedrockEmbed(body: unknown, request: EmbeddingRequest): EmbeddingList {
  const texts = textInputs(request, 'bedrock');
  if (isCohere(request.model)) return fromCohereEmbed(body, request.model, texts);
  const json = (body ?? {}) as Json;
  if (!Array.isArray(json.embedding)) throw new UpstreamError(502, 'The provider answered without an embedding', 'upstream_malformed_response');
  const tokens = Number.isInteger(json.inputTextTokenCount) ? (json.inputTextTokenCount as number) : 0;
  return embeddingList([json.embedding as number[]], request.model, tokens);
}
