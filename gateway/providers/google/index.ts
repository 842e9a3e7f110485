/**
 * The `google` adapter: Gemini through Google AI Studio (generativelanguage.googleapis.com,
 * v1beta generateContent and streamGenerateContent?alt=sse). The gateway credential becomes
 * `x-goog-api-key` (kept out of the URL, so it never lands in access logs). Translation lives in
 * ../gemini, shared with vertex-ai.
 */
import { modelSegment, versionedUrl } from '../gemini/endpoint.js';
import { parseGeminiError } from '../gemini/errors.js';
import { toGeminiBody } from '../gemini/request-body.js';
import { toChatCompletion } from '../gemini/response.js';
import { GeminiStreamTranslator } from '../gemini/stream.js';
import type { ChatContext, ProviderAdapter, ProviderTarget, ProxyCall, ProxyUpstream, UpstreamRequest } from '../types.js';
import { toModelList } from './models.js';

export const GOOGLE_AI_STUDIO_BASE_URL = 'https://generativelanguage.googleapis.com';

function headersFor(target: ProviderTarget): Record<string, string> {
  return { ...target.forwardHeaders, ...(target.apiKey ? { 'x-goog-api-key': target.apiKey } : {}) };
}

function url(target: ProviderTarget, path: string): string {
  return versionedUrl(target.customHost ?? GOOGLE_AI_STUDIO_BASE_URL, 'v1beta', path);
}

export const google: ProviderAdapter = {
  name: 'google',

  buildChatRequest(context: ChatContext): UpstreamRequest {
    const operation = context.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return {
      method: 'POST',
      url: url(context.target, `models/${modelSegment(context.request.model)}:${operation}`),
      headers: { ...headersFor(context.target), 'content-type': 'application/json' },
      body: JSON.stringify(toGeminiBody(context.request, context.target)),
    };
  },

  parseChatResponse: toChatCompletion,

  createStreamTranslator: (context) => new GeminiStreamTranslator(context),

  parseError: (status, body) => parseGeminiError(status, body, 'google'),

  buildModelsRequest(target: ProviderTarget): UpstreamRequest {
    return { method: 'GET', url: url(target, 'models?pageSize=1000'), headers: headersFor(target) };
  },

  parseModelsResponse: toModelList,

  buildProxyRequest(target: ProviderTarget, call: ProxyCall): ProxyUpstream {
    return { url: url(target, call.path.replace(/^\//, '')), headers: headersFor(target) };
  },
};
