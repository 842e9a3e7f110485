/**
 * The `anthropic` adapter: the Messages API (POST /v1/messages, SSE streams). The gateway
 * credential becomes `x-api-key`; `anthropic-version` pins the wire format. Translation rules live
 * in request-body.ts and messages.ts; vertex-ai reuses them for Claude models.
 */
import type { ChatContext, MessagesContext, ProviderAdapter, ProviderTarget, ProxyCall, ProxyUpstream, UpstreamRequest } from '../types.js';
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

/** The Messages door's own call: the client's version and beta flags kept, the credential replaced. */
function messagesHeaders(context: MessagesContext, accept: string): Record<string, string> {
  const headers = headersFor(context.target, accept);
  const { 'anthropic-version': version, 'anthropic-beta': beta } = context.headers;
  if (version) headers['anthropic-version'] = version;
  if (beta) headers['anthropic-beta'] = beta;
  return headers;
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

  buildMessagesRequest(context: MessagesContext): UpstreamRequest {
    const accept = context.stream ? 'text/event-stream' : 'application/json';
    return { method: 'POST', url: anthropicUrl(context.target, 'messages'), headers: messagesHeaders(context, accept), body: JSON.stringify(context.body) };
  },

  buildCountTokensRequest(context: MessagesContext): UpstreamRequest {
    const { stream: _stream, max_tokens: _max, ...body } = context.body;
    return { method: 'POST', url: anthropicUrl(context.target, 'messages/count_tokens'), headers: messagesHeaders(context, 'application/json'), body: JSON.stringify(body) };
  },

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
