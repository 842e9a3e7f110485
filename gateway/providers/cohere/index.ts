/**
 * The `cohere` adapter: Cohere's embed API (`POST /v2/embed`, bearer key). A custom host that
 * ends in /v1 or /v2 is called at `<host>/embed` in that version's shape, so Cohere-style hosts
 * work too. gw serves only embeddings through it: chat asks for an OpenAI-wire or native adapter.
 */
import { ValidationError } from '../../../server/errors.js';
import { textInputs } from '../embedding-inputs.js';
import { parseOpenAiError } from '../openai-compatible/adapter.js';
import type { EmbeddingContext, ProviderAdapter, UpstreamRequest } from '../types.js';
import { cohereEmbedBody, fromCohereEmbed } from './embed.js';

export const COHERE_BASE_URL = 'https://api.cohere.com';

function embedUrl(customHost: string | undefined): string {
  const base = (customHost ?? COHERE_BASE_URL).replace(/\/+$/, '');
  return /\/v[12]$/.test(base) ? `${base}/embed` : `${base}/v2/embed`;
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
    if (!target.apiKey && !target.accessToken) throw new ValidationError('cohere needs a provider key: send Authorization: Bearer <key> or use a saved provider', 'authorization', 'provider_key_missing');
    return {
      method: 'POST',
      url: embedUrl(target.customHost),
      headers: { ...target.forwardHeaders, 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${target.accessToken ?? target.apiKey}` },
      body: JSON.stringify({ model: request.model, ...cohereEmbedBody(request, textInputs(request, 'cohere')) }),
    };
  },

  parseEmbeddingResponse: (body, context) => fromCohereEmbed(body, context.request.model, textInputs(context.request, 'cohere')),
};
