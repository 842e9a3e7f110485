/**
 * The `anthropic` adapter: the Messages API (POST /v1/messages, SSE streams). The gateway
 * credential becomes `x-api-key`; `anthropic-version` pins the wire format. Translation rules live
 * in request-body.ts and messages.ts; vertex-ai reuses them for Claude models.
 */
import type { ChatContext, ProviderAdapter, ProviderTarget, ProxyCall, ProxyUpstream, UpstreamRequest } from '../types.js';
import { anthropicUrl } from './endpoint.js';
import { parseAnthropicError } from './errors.js';
import { toModelList } from './models.js';
import { toAnthropicBody } from './request-body.js';
import { toChatCompletion } from './response.js';
import { AnthropicStreamTranslator } from './stream.js';

export const ANTHROPIC_VERSION = '2023-06-01';

function headersFor(target: ProviderTarget, accept: string): Record<string, string> {
  return {
    ...target.forwardHeaders,
    ...(target.apiKey ? { 'x-api-key': target.apiKey } : {}),
    'anthropic-version': ANTHROPIC_VERSION,
    'content-type': 'application/json',
    accept,
  };
}

export const anthropic: ProviderAdapter = {
  name: 'anthropic',

  buildChatRequest(context: ChatContext): UpstreamRequest {
    return {
      method: 'POST',
      url: anthropicUrl(context.target, 'messages'),
      headers: headersFor(context.target, context.stream ? 'text/event-stream' : 'application/json'),
      body: JSON.stringify(toAnthropicBody(context.request, context.target, context.stream)),
    };
  },

  parseChatResponse: toChatCompletion,

  createStreamTranslator: (context) => new AnthropicStreamTranslator(context),

  parseError: parseAnthropicError,

  buildModelsRequest(target: ProviderTarget): UpstreamRequest {
    const { 'content-type': _unused, ...headers } = headersFor(target, 'application/json');
    return { method: 'GET', url: `${anthropicUrl(target, 'models')}?limit=1000`, headers };
  },

  parseModelsResponse: toModelList,

  buildProxyRequest(target: ProviderTarget, call: ProxyCall): ProxyUpstream {
    const { 'content-type': _type, accept: _accept, ...headers } = headersFor(target, '');
    return { url: anthropicUrl(target, call.path), headers };
  },
};
