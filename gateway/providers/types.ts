/**
 * The provider adapter contract. Every adapter under gateway/providers/<name>/ implements it;
 * this file imports no adapter. Adapters are pure translation: they build the upstream request,
 * map the upstream answer (JSON or stream) to OpenAI shapes and map errors. They never do I/O
 * themselves (the transport in gateway/ does), so golden-fixture tests can drive them directly.
 */
import type { components } from '../../generated/types.js';

export type ChatRequest = components['schemas']['ChatCompletionRequest'];
export type ChatCompletion = components['schemas']['ChatCompletion'];
export type ChatCompletionChunk = components['schemas']['ChatCompletionChunk'];
export type Usage = components['schemas']['Usage'];
export type ModelList = components['schemas']['ModelList'];
export type FinishReason = components['schemas']['FinishReason'];
export type EmbeddingRequest = components['schemas']['EmbeddingRequest'];
export type EmbeddingList = components['schemas']['EmbeddingList'];
export type CompletionRequest = components['schemas']['CompletionRequest'];
export type TextCompletion = components['schemas']['TextCompletion'];

/** Where and as whom to call the upstream: resolved from headers, a saved provider or a config target. */
export interface ProviderTarget {
  /** Adapter name: openai, azure-openai, anthropic, vertex-ai, google, bedrock, groq, ... */
  provider: string;
  /** The provider credential (from `Authorization: Bearer`, a saved provider, or a config target). */
  apiKey?: string;
  /**
   * A bearer token gw obtained for this call (OAuth client credentials, Entra, Google federation):
   * sent as `Authorization: Bearer` instead of the provider's key header.
   */
  accessToken?: string;
  /** Fetches a fresh credential after the upstream refused this one (401); set with accessToken. */
  renewCredentials?: () => Promise<ProviderTarget>;
  /** Base URL replacing the provider's default (custom host or self-hosted endpoint); already checked against private addresses. */
  customHost?: string;
  /** cloud1: Azure OpenAI. */
  azure?: { resourceName?: string; deploymentId?: string; apiVersion?: string; modelName?: string };
  /** cloud2: Google Vertex AI. */
  vertex?: { projectId?: string; region?: string; requestType?: string };
  /** cloud3: AWS Bedrock. */
  bedrock?: { accessKeyId?: string; secretAccessKey?: string; sessionToken?: string; region?: string };
  /** Headers sent upstream as they are (x-gw-forward-headers, integration custom headers). */
  forwardHeaders?: Record<string, string>;
  /** When false, adapters may add non-OpenAI fields (thinking content) to answers. Default true. */
  strictOpenAiCompliance?: boolean;
  /** A saved provider's integration pricing multiplier, for cost budgets (1 when absent). */
  pricingMultiplier?: number;
}

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** A pass-through call (`/v1/*` without a route of its own): where it goes below the provider's API base. */
export interface ProxyCall {
  /** The request path after `/v1`, with its query string: `/images/generations`, `/files?limit=2`. */
  path: string;
  /** Given to adapters that set `proxySignsBody`: what their signature must cover. */
  signed?: SignedProxyBody;
}

/** The parts of a pass-through request a body signature covers. */
export interface SignedProxyBody {
  method: string;
  /** The body headers that go upstream (content-type, accept, content-encoding). */
  headers: Record<string, string>;
  /** The whole body, read by gw (empty when there is none). */
  body: Buffer;
}

/** Where a pass-through goes and the provider's own headers (credentials, version); the transport streams the body. */
export interface ProxyUpstream {
  url: string;
  headers: Record<string, string>;
}

/** What an adapter knows while translating one call. */
export interface ChatContext {
  target: ProviderTarget;
  /** The OpenAI-shaped request after override_params; adapters read, never mutate it. */
  request: ChatRequest;
  stream: boolean;
  /** Unix seconds, for `created`; injected so fixtures are stable. */
  created: number;
  /** Completion id to use when the provider gives none. */
  id: string;
}

/** Incremental decoder of an upstream stream: bytes in, OpenAI chunks out. */
export interface StreamTranslator {
  /** Feeds raw bytes as they arrive; returns the chunks they complete (possibly none). */
  push(bytes: Uint8Array): ChatCompletionChunk[];
  /** Called at the upstream's end; returns any last chunks. Throws UpstreamError if the stream ended in an error or cut short. */
  end(): ChatCompletionChunk[];
  /** Usage seen so far (complete after end()). */
  usage(): Usage | undefined;
}

/** What the gateway pipeline carries: a chat request (legacy completions translate to one) or an embeddings request. */
export type GatewayRequest = ChatRequest | EmbeddingRequest;

/** A whole answer the gateway caches and logs: a chat completion, or an embeddings list (`object: 'list'`). */
export type GatewayAnswer = ChatCompletion | EmbeddingList;

/** What an adapter knows while translating one embeddings call. */
export interface EmbeddingContext {
  target: ProviderTarget;
  /** After override_params, with the upstream model; `encoding_format` is gw's business (the adapter asks for floats). */
  request: EmbeddingRequest;
}

/** A native legacy completions call: the legacy body as the target gets it (model and overrides applied). */
export interface TextCompletionContext extends Omit<ChatContext, 'request'> {
  request: CompletionRequest;
}

/**
 * A call on Anthropic's Messages wire: the Messages door (POST /v1/messages) at a target that
 * serves Claude models on it sends the client's body as it came instead of a translation.
 */
export interface MessagesContext extends ChatContext {
  /** The client's Messages body, with the routed model (no `@slug/`, the target's own model). */
  body: Record<string, unknown>;
  /** `anthropic-version` and `anthropic-beta` as the client sent them (absent when it did not). */
  headers: { 'anthropic-version'?: string; 'anthropic-beta'?: string };
}

/** Turns a provider's own stream framing into Anthropic's server-sent events (Bedrock's event stream). */
export interface MessagesStreamDecoder {
  push(bytes: Uint8Array): Uint8Array;
}

export interface ProviderError {
  message: string;
  code?: string;
}

export interface ProviderAdapter {
  /** Name as used in `x-gw-provider` and config `provider`. */
  readonly name: string;
  /** Builds the upstream call. Async because some providers sign requests (SigV4). Throws ValidationError for a parameter the provider cannot take. */
  buildChatRequest(context: ChatContext): Promise<UpstreamRequest> | UpstreamRequest;
  /** Maps a 2xx JSON answer to an OpenAI chat completion (usage always present). */
  parseChatResponse(body: unknown, context: ChatContext): ChatCompletion;
  /** A fresh decoder for one streamed answer. */
  createStreamTranslator(context: ChatContext): StreamTranslator;
  /** Extracts the message of a non-2xx answer; the upstream status is kept by the caller. */
  parseError(status: number, body: unknown): ProviderError;
  /** Embeddings, when the provider has them: the upstream call (always asking for float vectors). */
  buildEmbeddingRequest?(context: EmbeddingContext): Promise<UpstreamRequest> | UpstreamRequest;
  /** Maps a 2xx embeddings answer to an OpenAI list of float vectors, in input order. */
  parseEmbeddingResponse?(body: unknown, context: EmbeddingContext): EmbeddingList;
  /**
   * An OpenAI-wire answer that needs no change, kept as the JSON text it came in (answered, cached
   * and logged without parsing its vectors, and answered with `bytes`, the text as it came);
   * undefined sends it through parseEmbeddingResponse.
   */
  forwardEmbeddingResponse?(text: string, context: EmbeddingContext, bytes: Buffer): EmbeddingList | undefined;
  /**
   * The provider's own legacy completions endpoint (OpenAI wire). Its answers are read as chat
   * completions (text as the message content), so the rest of the pipeline stays chat-shaped.
   */
  buildTextCompletionRequest?(context: TextCompletionContext): UpstreamRequest;
  parseTextCompletionResponse?(body: unknown, context: TextCompletionContext): ChatCompletion;
  createTextCompletionStreamTranslator?(context: TextCompletionContext): StreamTranslator;
  /**
   * Anthropic's Messages wire, where the provider serves the model on it (anthropic; bedrock's
   * InvokeModel and vertex-ai's rawPredict for Claude models): the upstream call carrying the
   * client's body. Undefined for a model the provider serves otherwise (the request is translated).
   * Answers are Anthropic messages and Anthropic's server-sent events, read by the anthropic adapter.
   */
  buildMessagesRequest?(context: MessagesContext): Promise<UpstreamRequest | undefined> | UpstreamRequest | undefined;
  /**
   * OpenAI's Responses API, where the provider has it: the upstream call carrying a Responses body
   * as given (gateway/chat/responses-wire.ts sends Responses calls with hosted tools this way). Its
   * answers are read by the openai-compatible Responses reader.
   */
  buildResponsesRequest?(context: ChatContext, body: Record<string, unknown>): UpstreamRequest;
  /** A stream on the Messages wire that is not framed as server-sent events (Bedrock): its decoder. */
  createMessagesStreamDecoder?(): MessagesStreamDecoder;
  /** Anthropic's count_tokens for the model, when the provider has it (the body as for buildMessagesRequest). */
  buildCountTokensRequest?(context: MessagesContext): Promise<UpstreamRequest | undefined> | UpstreamRequest | undefined;
  /** The provider's own models list, when it has one. */
  buildModelsRequest?(target: ProviderTarget): Promise<UpstreamRequest> | UpstreamRequest;
  parseModelsResponse?(body: unknown): ModelList;
  /** The URL and credential headers of a pass-through call; absent when the provider has none (a 400 names it). */
  buildProxyRequest?(target: ProviderTarget, call: ProxyCall): Promise<ProxyUpstream> | ProxyUpstream;
  /**
   * The provider's pass-through signature covers the body (SigV4): gw reads the body whole (up to
   * the body limit) and passes it in `call.signed` instead of streaming it as it arrives.
   */
  readonly proxySignsBody?: boolean;
  /**
   * The provider's own batch API on OpenAI's wire (`/files`, `/batches`, `/batches/{id}`, ...):
   * the URL and credential headers of a call to `path`. Absent when the provider has none, so a
   * native batch is refused at create. `endpoint` maps a batch endpoint to the provider's name for it.
   */
  buildBatchApiRequest?(target: ProviderTarget, path: string): ProxyUpstream;
  batchEndpoint?(endpoint: string): string;
}
