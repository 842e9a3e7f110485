/**
 * The `vertex-ai` adapter (cloud2): Google Vertex AI. Gemini models through generateContent and
 * streamGenerateContent (translation shared with `google` in ../gemini); Claude models through
 * Anthropic's rawPredict and streamRawPredict, whose body is the Anthropic Messages body without
 * `model` and with `anthropic_version` (translation shared with `anthropic`). The gateway
 * credential is a Google access token, sent as `Authorization: Bearer`. The cloud2 request type
 * (X-Cloud2-LLM-Request-Type, dedicated or shared provisioned throughput) goes upstream under the
 * name Vertex AI reads, X-Vertex-AI-LLM-Request-Type. The pass-through sends the same token to
 * the path the caller named, inside the target's project and location (endpoint.ts).
 */
import { toAnthropicBody } from '../anthropic/request-body.js';
import { toChatCompletion as toChatCompletionFromAnthropic } from '../anthropic/response.js';
import { parseAnthropicError } from '../anthropic/errors.js';
import { AnthropicStreamTranslator } from '../anthropic/stream.js';
import { parseGeminiError } from '../gemini/errors.js';
import { toGeminiBody } from '../gemini/request-body.js';
import { toChatCompletion as toChatCompletionFromGemini } from '../gemini/response.js';
import { GeminiStreamTranslator } from '../gemini/stream.js';
import type { ChatContext, EmbeddingContext, MessagesContext, ProviderAdapter, ProviderTarget, ProxyCall, ProxyUpstream, UpstreamRequest } from '../types.js';
import { fromVertexPredict, vertexPredictBody } from '../gemini/embeddings.js';
import { vertexModelOf, vertexModelUrl, vertexPathUrl, vertexUrl } from './endpoint.js';

/** The Messages API version Vertex AI's rawPredict takes in the body. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

function bodyFor(context: ChatContext, publisher: 'google' | 'anthropic'): unknown {
  if (publisher === 'google') return toGeminiBody(context.request, context.target);
  const { model: _model, ...body } = toAnthropicBody(context.request, context.target, context.stream);
  return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...body };
}

/** The credential and request type; a pass-through keeps the caller's content type. */
function authHeaders(target: ProviderTarget): Record<string, string> {
  return {
    ...target.forwardHeaders,
    ...(target.accessToken || target.apiKey ? { authorization: `Bearer ${target.accessToken ?? target.apiKey}` } : {}),
    ...(target.vertex?.requestType ? { 'x-vertex-ai-llm-request-type': target.vertex.requestType } : {}),
  };
}

function headersFor(target: ProviderTarget): Record<string, string> {
  return { ...authHeaders(target), 'content-type': 'application/json' };
}

/** The Messages door's body for rawPredict: the client's, without `model` (in the URL) and with Vertex's version. */
function rawPredictBody(context: MessagesContext, keep: { stream: boolean; model: boolean }): string {
  const { model, stream, ...body } = context.body;
  return JSON.stringify({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...body, ...(keep.stream && stream !== undefined ? { stream } : {}), ...(keep.model ? { model } : {}) });
}

/** The client's beta flags, which Vertex AI reads from the same header as Anthropic. */
function messagesHeaders(context: MessagesContext): Record<string, string> {
  const beta = context.headers['anthropic-beta'];
  return { ...headersFor(context.target), ...(beta ? { 'anthropic-beta': beta } : {}) };
}

function isAnthropicContext(context: ChatContext): boolean {
  return vertexModelOf(context.request.model).publisher === 'anthropic';
}

export const vertexAi: ProviderAdapter = {
  name: 'vertex-ai',

  buildChatRequest(context: ChatContext): UpstreamRequest {
    const model = vertexModelOf(context.request.model);
    return { method: 'POST', url: vertexUrl(context.target, model, context.stream), headers: headersFor(context.target), body: JSON.stringify(bodyFor(context, model.publisher)) };
  },

  // The Messages door's Claude calls: rawPredict / streamRawPredict with the client's Anthropic body.
  buildMessagesRequest(context: MessagesContext): UpstreamRequest | undefined {
    const model = vertexModelOf(context.request.model);
    if (model.publisher !== 'anthropic') return undefined;
    return { method: 'POST', url: vertexUrl(context.target, model, context.stream), headers: messagesHeaders(context), body: rawPredictBody(context, { stream: true, model: false }) };
  },

  // Vertex AI's token counter for Claude is a model of its own (count-tokens), told the model in the body.
  buildCountTokensRequest(context: MessagesContext): UpstreamRequest | undefined {
    const model = vertexModelOf(context.request.model);
    if (model.publisher !== 'anthropic') return undefined;
    const url = vertexModelUrl(context.target, { publisher: 'anthropic', id: 'count-tokens' }, 'rawPredict');
    const { max_tokens: _max, ...body } = JSON.parse(rawPredictBody({ ...context, body: { ...context.body, model: model.id } }, { stream: false, model: true })) as Record<string, unknown>;
    return { method: 'POST', url, headers: messagesHeaders(context), body: JSON.stringify(body) };
  },

  // Google's text embedding models (text-embedding-005, gemini-embedding-001) through :predict.
  buildEmbeddingRequest(context: EmbeddingContext): UpstreamRequest {
    const url = vertexModelUrl(context.target, vertexModelOf(context.request.model), 'predict');
    return { method: 'POST', url, headers: headersFor(context.target), body: JSON.stringify(vertexPredictBody(context.request)) };
  },

  parseEmbeddingResponse: (body, context) => fromVertexPredict(body, context.request),

  parseChatResponse: (body, context) => (isAnthropicContext(context) ? toChatCompletionFromAnthropic(body, context) : toChatCompletionFromGemini(body, context)),

  createStreamTranslator: (context) => (isAnthropicContext(context) ? new AnthropicStreamTranslator(context) : new GeminiStreamTranslator(context)),

  // Errors come in Anthropic's shape from rawPredict once the call reached the model, in Google's otherwise.
  parseError: (status, body) =>
    (body as { type?: unknown } | null)?.type === 'error' ? parseAnthropicError(status, body) : parseGeminiError(status, body, 'vertex-ai'),

  buildProxyRequest(target: ProviderTarget, call: ProxyCall): ProxyUpstream {
    return { url: vertexPathUrl(target, call.path), headers: authHeaders(target) };
  },
};
