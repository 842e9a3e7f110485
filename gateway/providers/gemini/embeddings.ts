/**
 * Gemini embeddings. Google AI Studio: `models/{model}:batchEmbedContents` with one request per
 * text, answering `embeddings[].values` and no token counts (estimated at four characters a
 * token). Vertex AI: `:predict` with `instances[].content`, answering
 * `predictions[].embeddings.values` with each text's `statistics.token_count`.
 */
import { UpstreamError } from '../../../core/errors.js';
import { embeddingList, estimatedInputTokens, textInputs } from '../embedding-inputs.js';
import type { EmbeddingList, EmbeddingRequest } from '../types.js';
import { modelSegment } from './endpoint.js';

type Json = Record<string, unknown>;

function malformed(): never {
  throw new UpstreamError(502, 'The provider answered without embeddings', 'upstream_malformed_response');
}

export function batchEmbedBody(request: EmbeddingRequest, provider: string): Json {
  const model = `models/${decodeURIComponent(modelSegment(request.model))}`;
  return {
    requests: textInputs(request, provider).map((text) => ({
      model,
      content: { parts: [{ text }] },
      ...(request.dimensions !== undefined ? { outputDimensionality: request.dimensions } : {}),
    })),
  };
}

export function fromBatchEmbed(body: unknown, request: EmbeddingRequest, provider: string): EmbeddingList {
  const embeddings = (body as Json | undefined)?.embeddings;
  if (!Array.isArray(embeddings)) malformed();
  const vectors = (embeddings as Json[]).map((item) => (Array.isArray(item.values) ? (item.values as number[]) : malformed()));
  return embeddingList(vectors, request.model, estimatedInputTokens(textInputs(request, provider)));
}

export function vertexPredictBody(request: EmbeddingRequest): Json {
  return {
    instances: textInputs(request, 'vertex-ai').map((content) => ({ content })),
    ...(request.dimensions !== undefined ? { parameters: { outputDimensionality: request.dimensions } } : {}),
  };
}

export function fromVertexPredict(body: unknown, request: EmbeddingRequest): EmbeddingList {
  const predictions = (body as Json | undefined)?.predictions;
  if (!Array.isArray(predictions)) malformed();
  let tokens = 0;
  const vectors = (predictions as Json[]).map((prediction) => {
    const embeddings = (prediction.embeddings ?? {}) as Json;
    const count = (embeddings.statistics as Json | undefined)?.token_count;
    tokens += typeof count === 'number' ? count : 0;
    return Array.isArray(embeddings.values) ? (embeddings.values as number[]) : malformed();
  });
  return embeddingList(vectors, request.model, tokens);
}
