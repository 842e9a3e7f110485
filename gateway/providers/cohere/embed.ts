/**
 * Cohere's embed wire shape, shared by the `cohere` adapter (/v2/embed, or /v1/embed on a custom
 * host) and Bedrock's Cohere embed models (invoke): `texts` and `input_type` in; vectors out as
 * `embeddings: [[...]]` (v1, Bedrock without embedding_types) or `embeddings: {float: [[...]]}`.
 * `input_type` passes through when the client sends it; documents are the default.
 */
import { UpstreamError } from '../../../core/errors.js';
import { embeddingList, estimatedInputTokens } from '../embedding-inputs.js';
import type { EmbeddingList, EmbeddingRequest } from '../types.js';

type Json = Record<string, unknown>;

export function cohereEmbedBody(request: EmbeddingRequest, texts: string[]): Json {
  const inputType = (request as { input_type?: unknown }).input_type;
  return {
    texts,
    input_type: typeof inputType === 'string' ? inputType : 'search_document',
    embedding_types: ['float'],
    ...(request.dimensions !== undefined ? { output_dimension: request.dimensions } : {}),
  };
}

function isVectorList(value: unknown): value is number[][] {
  return Array.isArray(value) && value.every((vector) => Array.isArray(vector));
}

export function fromCohereEmbed(body: unknown, model: string, texts: string[]): EmbeddingList {
  const json = (body ?? {}) as Json;
  const embeddings = json.embeddings;
  const vectors = isVectorList(embeddings) ? embeddings : (embeddings as { float?: unknown } | undefined)?.float;
  if (!isVectorList(vectors)) throw new UpstreamError(502, 'The provider answered without float embeddings', 'upstream_malformed_response');
  const billed = ((json.meta as Json | undefined)?.billed_units as Json | undefined)?.input_tokens;
  return embeddingList(vectors, model, Number.isInteger(billed) ? (billed as number) : estimatedInputTokens(texts));
}
