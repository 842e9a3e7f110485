/**
 * The `cohere` adapter: Cohere's embed API (`POST /v2/embed`, bearer key). A custom host that
 * ends in /v1 or /v2 is called at `<host>/embed` in that version's shape, so Cohere-style hosts
 * work too. gw serves only embeddings through it (chat asks for an OpenAI-wire or native
 * adapter); its other calls (rerank, classify, ...) go through the pass-through, below the same
 * API version.
 */
import { ValidationError } from '../../../core/errors.js';
import { textInputs } from '../embedding-inputs.js';
import { parseOpenAiError } from '../openai-compatible/adapter.js';
import type { EmbeddingContext, ProviderAdapter, ProviderTarget, ProxyCall, ProxyUpstream, UpstreamRequest } from '../types.js';
import { cohereEmbedBody, fromCohereEmbed } from './embed.js';

export const COHERE_BASE_URL = 'https://api.cohere.com';

/** The versioned API base: a custom host's own /v1 or /v2, else Cohere's current v2. */
function apiBase(customHost: string | undefined): string {
  const base = (customHost ?? COHERE_BASE_URL).replace(/\/+$/, '');
  return /\/v[12]$/.test(base) ? base : `${base}/v2`;
}

function requireKey(target: ProviderTarget): string {
  const key = target.accessToken ?? target.apiKey;
  if (!key) throw new ValidationError('cohere needs a provider key: send Authorization: Bearer <key> or use a saved provider', 'authorization', 'provider_key_missing');
  return key;
}

function chatUnsupported(): never {
  throw new ValidationError('cohere serves embeddings only through gw; use POST /v1/embeddings', 'x-gw-provider', 'operation_unsupported');
}

export const cohere: ProviderAdapter = {
  name: 'cohere',
  buildChatRequest: chatUnsupported,
  parseChatResponse: chatUnsupported,
  createStreamTranslator: chatUnsupported,
  parseError: parseOpenAiError,

  buildEmbeddingRequest(context: EmbeddingContext): UpstreamRequest {
    const { target, request } = context;
    const key = requireKey(target);
    return {
      method: 'POST',
      url: `${apiBase(target.customHost)}/embed`,
      headers: { ...target.forwardHeaders, 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: request.model, ...cohereEmbedBody(request, textInputs(request, 'cohere')) }),
    };
  },

  parseEmbeddingResponse: (body, context) => fromCohereEmbed(body, context.request.model, textInputs(context.request, 'cohere')),

  buildProxyRequest(target: ProviderTarget, call: ProxyCall): ProxyUpstream {
    return { url: `${apiBase(target.customHost)}/${call.path.replace(/^\//, '')}`, headers: { ...target.forwardHeaders, authorization: `Bearer ${requireKey(target)}` } };
  },
};
