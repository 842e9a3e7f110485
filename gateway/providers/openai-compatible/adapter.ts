/**
 * The one base every OpenAI-wire provider composes from: OpenAI itself, Azure OpenAI (own URL and
 * header) and the compatible hosts in hosts.ts, each a few lines of options.
 */
import { ValidationError } from '../../../core/errors.js';
import type {
  ChatCompletion,
  ChatContext,
  ChatRequest,
  EmbeddingContext,
  ModelList,
  ProviderAdapter,
  ProviderError,
  ProviderTarget,
  ProxyCall,
  ProxyUpstream,
  StreamTranslator,
  TextCompletionContext,
  UpstreamRequest,
} from '../types.js';
import { embeddingBody, normalizeEmbeddingList } from './embeddings.js';
import { readWireEmbeddingList } from '../wire-embedding-list.js';
import { textChunkToChat, textCompletionBody, textCompletionToChat } from './text-completion.js';
import { normalizeCompletion } from './normalize.js';
import { openAiCompatibleBody, type BodyRules } from './request-body.js';
import { OpenAiStreamTranslator } from './stream.js';

export interface OpenAiCompatibleOptions {
  name: string;
  /** Base URL including the version prefix (`https://api.groq.com/openai/v1`). Absent: a custom host is required (vllm). */
  baseUrl?: string;
  /** A self-hosted default (ollama on localhost), used as if the caller had sent it as the custom host, so the address guard applies. */
  defaultCustomHost?: string;
  /** How the key travels: `Authorization: Bearer` by default; `none` for keyless local servers. */
  auth?: 'bearer' | 'none' | ((apiKey: string) => Record<string, string>);
  /** The host takes `max_tokens` only. */
  maxTokensOnly?: boolean;
  /** Request fields the host rejects; dropped. */
  dropFields?: readonly string[];
  /** Request fields the host names differently. */
  renameFields?: Readonly<Record<string, string>>;
  /** The host takes `stream_options` (default true); otherwise it reports usage unasked. */
  streamOptions?: boolean;
  /** Model-family rules checked before any upstream call; throws ValidationError. */
  checkRequest?: (request: ChatRequest, target: ProviderTarget) => void;
  /** Full URL of an operation (`chat/completions`, `completions`, `embeddings`) for a target (Azure's deployment URL); default `<base>/<operation>`. */
  operationUrl?: (target: ProviderTarget, base: string, operation: string) => string;
  /** Full models-list URL; default `<base>/models`. */
  modelsUrl?: (target: ProviderTarget, base: string) => string;
  /** Full pass-through URL for a path below /v1 (Azure's deployment URL); default `<base><path>`. */
  proxyUrl?: (target: ProviderTarget, base: string, path: string) => string;
  /**
   * The host serves OpenAI's Responses API (hosted tools run there): `true` for `<base>/responses`
   * with the body as the door built it, or where the host has it and what it takes as the model
   * (Azure: its v1 API, the deployment as the model).
   */
  responsesApi?: true | { url(target: ProviderTarget): string; model(target: ProviderTarget, model: unknown): unknown };
  /** The host takes `file` content parts (PDF documents) as OpenAI does; default true. Otherwise they are refused with 400 naming the host. */
  documents?: boolean;
  /** The host serves OpenAI's files and batches API (native batches); default `<base><path>` for its URLs. */
  batchApi?: boolean | { url: (target: ProviderTarget, base: string, path: string) => string; endpoint: (endpoint: string) => string };
}

export interface OpenAiCompatibleAdapter extends ProviderAdapter {
  readonly defaultCustomHost?: string;
}

type Json = Record<string, unknown>;

/** A host without document input: a file part is refused here, naming the host, rather than by the host in its own words. */
function refuseDocuments(name: string, request: ChatRequest): void {
  request.messages.forEach((message, index) => {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) return;
    const part = content.findIndex((item: { type?: string }) => item?.type === 'file');
    if (part >= 0) throw new ValidationError(`${name} does not take documents (file content parts); send the text instead, or use a provider that takes PDFs`, `messages[${index}].content[${part}]`, 'unsupported_content');
  });
}

export function parseOpenAiError(status: number, body: unknown): ProviderError {
  if (typeof body === 'string' && body.trim() !== '') return { message: body.slice(0, 1000) };
  const json = (body ?? {}) as Json;
  const error = json.error;
  if (error && typeof error === 'object') {
    const { message, code, type } = error as Json;
    return {
      message: typeof message === 'string' ? message : `Upstream error ${status}`,
      code: typeof code === 'string' ? code : typeof type === 'string' ? type : undefined,
    };
  }
  if (typeof error === 'string') return { message: error };
  if (typeof json.message === 'string') return { message: json.message };
  if (typeof json.detail === 'string') return { message: json.detail };
  return { message: `Upstream error ${status}` };
}

export function createOpenAiCompatibleAdapter(options: OpenAiCompatibleOptions): OpenAiCompatibleAdapter {
  const rules: BodyRules = {
    maxTokensOnly: options.maxTokensOnly ?? false,
    dropFields: options.dropFields ?? [],
    renameFields: options.renameFields ?? {},
    streamOptions: options.streamOptions ?? true,
  };

  const baseFor = (target: ProviderTarget): string => {
    const base = target.customHost ?? options.baseUrl;
    if (!base) throw new ValidationError(`${options.name} is self-hosted: send its base URL in x-gw-custom-host, or set custom_host on the config target or the saved provider`, 'x-gw-custom-host', 'custom_host_required');
    return base.endsWith('/') ? base.slice(0, -1) : base;
  };

  const authHeaders = (target: ProviderTarget): Record<string, string> => {
    if (target.accessToken) return { authorization: `Bearer ${target.accessToken}` };
    if (options.auth === 'none') return target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
    if (!target.apiKey) {
      throw new ValidationError(`${options.name} needs a provider key: send Authorization: Bearer <key> or use a saved provider`, 'authorization', 'provider_key_missing');
    }
    return typeof options.auth === 'function' ? options.auth(target.apiKey) : { authorization: `Bearer ${target.apiKey}` };
  };

  const urlFor = (target: ProviderTarget, operation: string): string => {
    const base = baseFor(target);
    return options.operationUrl ? options.operationUrl(target, base, operation) : `${base}/${operation}`;
  };

  const postHeaders = (target: ProviderTarget, stream: boolean): Record<string, string> => ({
    ...target.forwardHeaders,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    ...authHeaders(target),
  });

  return {
    name: options.name,
    defaultCustomHost: options.defaultCustomHost,

    buildChatRequest(context: ChatContext): UpstreamRequest {
      options.checkRequest?.(context.request, context.target);
      if (options.documents === false) refuseDocuments(options.name, context.request);
      const target = context.target;
      return {
        method: 'POST',
        url: urlFor(target, 'chat/completions'),
        headers: postHeaders(target, context.stream),
        body: JSON.stringify(openAiCompatibleBody(context.request, context.stream, rules)),
      };
    },

    ...(options.responsesApi
      ? {
          buildResponsesRequest(context: ChatContext, body: Record<string, unknown>): UpstreamRequest {
            const host = options.responsesApi === true ? undefined : options.responsesApi;
            const url = host ? host.url(context.target) : urlFor(context.target, 'responses');
            const sent = host ? { ...body, model: host.model(context.target, body.model) } : body;
            return { method: 'POST', url, headers: postHeaders(context.target, context.stream), body: JSON.stringify(sent) };
          },
        }
      : {}),

    parseChatResponse(body: unknown, context: ChatContext): ChatCompletion {
      const fallback = { id: context.id, created: context.created, model: context.request.model };
      return normalizeCompletion((body ?? {}) as Json, fallback, context.target.strictOpenAiCompliance !== false);
    },

    createStreamTranslator(context: ChatContext): StreamTranslator {
      return new OpenAiStreamTranslator(context);
    },

    parseError: parseOpenAiError,

    buildEmbeddingRequest(context: EmbeddingContext): UpstreamRequest {
      return { method: 'POST', url: urlFor(context.target, 'embeddings'), headers: postHeaders(context.target, false), body: JSON.stringify(embeddingBody(context.request, rules.dropFields)) };
    },

    parseEmbeddingResponse: (body, context) => normalizeEmbeddingList(body, context.request.model),
    forwardEmbeddingResponse: (text, _context, bytes) => readWireEmbeddingList(text, bytes),

    buildTextCompletionRequest(context: TextCompletionContext): UpstreamRequest {
      const body = textCompletionBody(context.request, context.stream, rules);
      return { method: 'POST', url: urlFor(context.target, 'completions'), headers: postHeaders(context.target, context.stream), body: JSON.stringify(body) };
    },

    parseTextCompletionResponse: (body, context) =>
      textCompletionToChat(body, { id: context.id, created: context.created, model: context.request.model }, context.target.strictOpenAiCompliance !== false),

    createTextCompletionStreamTranslator: (context) => new OpenAiStreamTranslator(context, textChunkToChat),

    buildModelsRequest(target: ProviderTarget): UpstreamRequest {
      return {
        method: 'GET',
        url: options.modelsUrl ? options.modelsUrl(target, baseFor(target)) : `${baseFor(target)}/models`,
        headers: { ...target.forwardHeaders, accept: 'application/json', ...authHeaders(target) } };
    },

    buildProxyRequest(target: ProviderTarget, call: ProxyCall): ProxyUpstream {
      const base = baseFor(target);
      return { url: options.proxyUrl ? options.proxyUrl(target, base, call.path) : `${base}${call.path}`, headers: { ...target.forwardHeaders, ...authHeaders(target) } };
    },

    ...(options.batchApi
      ? {
          buildBatchApiRequest(target: ProviderTarget, path: string): ProxyUpstream {
            const base = baseFor(target);
            const url = typeof options.batchApi === 'object' ? options.batchApi.url(target, base, path) : `${base}${path}`;
            return { url, headers: { ...target.forwardHeaders, ...authHeaders(target) } };
          },
          batchEndpoint: typeof options.batchApi === 'object' ? options.batchApi.endpoint : (endpoint: string) => endpoint,
        }
      : {}),

    parseModelsResponse(body: unknown): ModelList {
      const data = Array.isArray((body as Json | undefined)?.data) ? ((body as Json).data as Json[]) : [];
      return {
        object: 'list',
        data: data
          .filter((model) => typeof model.id === 'string')
          .map((model) => ({
            id: model.id as string,
            object: 'model',
            created: Number.isInteger(model.created) ? (model.created as number) : 0,
            owned_by: typeof model.owned_by === 'string' ? model.owned_by : options.name,
            provider: options.name,
          })),
      };
    },
  };
}
