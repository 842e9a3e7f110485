/**
 * The `bedrock` adapter (cloud3): AWS Bedrock through the Converse and ConverseStream APIs,
 * every call signed with SigV4. Translation rules live in request-body.ts and messages.ts. The
 * pass-through goes to the runtime host too, signed over the body gw read whole.
 */
import type { ChatContext, EmbeddingContext, MessagesContext, ProviderAdapter, ProviderTarget, ProxyCall, ProxyUpstream, UpstreamRequest } from '../types.js';
import { InvokeStreamDecoder, invokeBody, isAnthropicModel } from './anthropic-messages.js';
import { bedrockEmbedBody, fromBedrockEmbed } from './embeddings.js';
import { awsCredentials } from './credentials.js';
import { converseUrl, countTokensUrl, foundationModelsUrl, invokeStreamUrl, invokeUrl, runtimePathUrl } from './endpoint.js';
import { parseBedrockError } from './errors.js';
import { toModelList } from './models.js';
import { toConverseBody } from './request-body.js';
import { toChatCompletion } from './response.js';
import { signRequest } from './signing.js';
import { ConverseStreamTranslator } from './stream.js';

// Headers the signature owns: a forwarded header of the same name would break or spoof it.
const SIGNATURE_HEADERS = /^(host|authorization|x-amz-.*)$/i;

function withForwardedHeaders<T extends { headers: Record<string, string> }>(request: T, target: ProviderTarget): T {
  const built = new Set(Object.keys(request.headers).map((name) => name.toLowerCase()));
  const forwarded = Object.entries(target.forwardHeaders ?? {}).filter(([name]) => !SIGNATURE_HEADERS.test(name) && !built.has(name.toLowerCase()));
  if (forwarded.length === 0) return request;
  // Added after signing: forwarded headers go upstream as they are, outside the signature.
  return { ...request, headers: { ...Object.fromEntries(forwarded), ...request.headers } };
}

export const bedrock: ProviderAdapter = {
  name: 'bedrock',

  async buildChatRequest(context: ChatContext): Promise<UpstreamRequest> {
    const credentials = awsCredentials(context.target);
    const body = JSON.stringify(toConverseBody(context.request, context.target));
    const unsigned: UpstreamRequest = {
      method: 'POST',
      url: converseUrl(context.target, credentials.region, context.request.model, context.stream),
      headers: {
        'content-type': 'application/json',
        accept: context.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
      },
      body,
    };
    return withForwardedHeaders(await signRequest(unsigned, credentials), context.target);
  },

  parseChatResponse: toChatCompletion,

  // The Messages door's Claude calls: InvokeModel with the client's Anthropic body (anthropic-messages.ts).
  async buildMessagesRequest(context: MessagesContext): Promise<UpstreamRequest | undefined> {
    if (!isAnthropicModel(context.request.model)) return undefined;
    const credentials = awsCredentials(context.target);
    const url = context.stream ? invokeStreamUrl(context.target, credentials.region, context.request.model) : invokeUrl(context.target, credentials.region, context.request.model);
    const accept = context.stream ? 'application/vnd.amazon.eventstream' : 'application/json';
    const unsigned: UpstreamRequest = { method: 'POST', url, headers: { 'content-type': 'application/json', accept }, body: JSON.stringify(invokeBody(context)) };
    return withForwardedHeaders(await signRequest(unsigned, credentials), context.target);
  },

  createMessagesStreamDecoder: () => new InvokeStreamDecoder(),

  // Bedrock's CountTokens takes the InvokeModel body, base64-encoded.
  async buildCountTokensRequest(context: MessagesContext): Promise<UpstreamRequest | undefined> {
    if (!isAnthropicModel(context.request.model)) return undefined;
    const credentials = awsCredentials(context.target);
    const { max_tokens: _max, ...rest } = invokeBody(context);
    const body = JSON.stringify({ input: { invokeModel: { body: Buffer.from(JSON.stringify({ max_tokens: 1, ...rest })).toString('base64') } } });
    const unsigned: UpstreamRequest = { method: 'POST', url: countTokensUrl(context.target, credentials.region, context.request.model), headers: { 'content-type': 'application/json', accept: 'application/json' }, body };
    return withForwardedHeaders(await signRequest(unsigned, credentials), context.target);
  },

  createStreamTranslator: (context) => new ConverseStreamTranslator(context),

  parseError: parseBedrockError,

  async buildEmbeddingRequest(context: EmbeddingContext): Promise<UpstreamRequest> {
    const credentials = awsCredentials(context.target);
    const unsigned: UpstreamRequest = {
      method: 'POST',
      url: invokeUrl(context.target, credentials.region, context.request.model),
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(bedrockEmbedBody(context.request)),
    };
    return withForwardedHeaders(await signRequest(unsigned, credentials), context.target);
  },

  parseEmbeddingResponse: (body, context) => fromBedrockEmbed(body, context.request),

  async buildModelsRequest(target: ProviderTarget): Promise<UpstreamRequest> {
    const credentials = awsCredentials(target);
    const unsigned: UpstreamRequest = { method: 'GET', url: foundationModelsUrl(target, credentials.region), headers: { accept: 'application/json' } };
    return withForwardedHeaders(await signRequest(unsigned, credentials), target);
  },

  parseModelsResponse: toModelList,

  proxySignsBody: true,

  async buildProxyRequest(target: ProviderTarget, call: ProxyCall): Promise<ProxyUpstream> {
    const credentials = awsCredentials(target);
    const { method, headers, body } = call.signed ?? { method: 'GET', headers: {}, body: undefined };
    const signed = await signRequest({ method, url: runtimePathUrl(target, credentials.region, call.path), headers, body }, credentials);
    return withForwardedHeaders({ url: signed.url, headers: signed.headers }, target);
  },
};
