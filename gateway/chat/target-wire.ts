/**
 * What one attempt sends and how it reads the answer, by operation: a chat call; a legacy
 * completion (the provider's native endpoint, else the chat call it was translated to); a
 * Messages call (Anthropic's wire where the target has it, else chat: messages-wire.ts); a
 * Responses call offering hosted tools (OpenAI's Responses API where the target has it, else chat:
 * responses-wire.ts); or an embeddings call. The attempt itself (credentials, limits, timeouts, errors) is the same for all
 * (call-target.ts).
 */
import { ValidationError } from '../../core/errors.js';
import type { ChatContext, EmbeddingRequest, GatewayAnswer, ProviderAdapter, StreamTranslator, UpstreamRequest } from '../providers/types.js';
import type { ChatOrigin } from './run-chat.js';
import { assertTranslatable, nativeRequestOf } from './text-completion.js';
import { messagesWire } from './messages-wire.js';
import { responsesWire } from './responses-wire.js';

export interface TargetWire {
  build(context: ChatContext): Promise<UpstreamRequest> | UpstreamRequest;
  /** Maps a 2xx answer's JSON bytes (a SyntaxError when they are not JSON). */
  read(bytes: Buffer, context: ChatContext): GatewayAnswer;
  translator(context: ChatContext): StreamTranslator;
}

function chatWire(adapter: ProviderAdapter): TargetWire {
  return {
    build: (context) => adapter.buildChatRequest(context),
    read: (bytes, context) => adapter.parseChatResponse(JSON.parse(bytes.toString()), context),
    translator: (context) => adapter.createStreamTranslator(context),
  };
}

function embeddingsWire(adapter: ProviderAdapter): TargetWire {
  const { buildEmbeddingRequest, parseEmbeddingResponse, forwardEmbeddingResponse } = adapter;
  if (!buildEmbeddingRequest || !parseEmbeddingResponse) {
    throw new ValidationError(`${adapter.name} has no embeddings endpoint in gw; use an embeddings provider (openai, azure-openai, google, vertex-ai, bedrock, cohere or an OpenAI-compatible host)`, 'model', 'embeddings_unsupported');
  }
  // The routed request is an embeddings request on this path; ChatContext only carries it.
  const embedding = (context: ChatContext) => ({ target: context.target, request: context.request as unknown as EmbeddingRequest });
  return {
    build: (context) => buildEmbeddingRequest.call(adapter, embedding(context)),
    // An answer gw can forward as it came skips parsing its vectors (wire-embedding-list.ts).
    read: (bytes, context) => {
      const text = bytes.toString();
      return forwardEmbeddingResponse?.call(adapter, text, embedding(context), bytes) ?? parseEmbeddingResponse.call(adapter, JSON.parse(text), embedding(context));
    },
    translator: () => {
      throw new ValidationError('embeddings are not streamed', 'stream');
    },
  };
}

export function wireFor(origin: ChatOrigin, adapter: ProviderAdapter): TargetWire {
  if (origin.endpoint === 'embeddings') return embeddingsWire(adapter);
  if (origin.messages) return messagesWire(origin.messages, adapter, chatWire(adapter));
  if (origin.responses) return responsesWire(origin.responses, adapter, chatWire(adapter));
  const legacy = origin.textCompletion;
  if (!legacy) return chatWire(adapter);
  const { buildTextCompletionRequest, parseTextCompletionResponse, createTextCompletionStreamTranslator } = adapter;
  if (!buildTextCompletionRequest || !parseTextCompletionResponse || !createTextCompletionStreamTranslator) {
    assertTranslatable(legacy, adapter.name);
    return chatWire(adapter);
  }
  const native = (context: ChatContext) => ({ ...context, request: nativeRequestOf(legacy, context.request as unknown as Record<string, unknown>) });
  return {
    build: (context) => buildTextCompletionRequest.call(adapter, native(context)),
    read: (bytes, context) => parseTextCompletionResponse.call(adapter, JSON.parse(bytes.toString()), native(context)),
    translator: (context) => createTextCompletionStreamTranslator.call(adapter, native(context)),
  };
}
