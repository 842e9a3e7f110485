/**
 * The Messages door's attempt at one target (target-wire.ts picks it when the door runs the
 * pipeline). A target that serves the model on Anthropic's wire (buildMessagesRequest) gets the
 * client's body as it came; its answer is read as a chat completion for the pipeline (logs, cost,
 * cache, guardrails) and also handed to the door as it came: the JSON bytes, or each piece of the
 * stream as Anthropic's server-sent events (relayed to the client as they arrive). Any other target
 * gets the chat translation, unless the request holds something the chat form cannot say: then
 * this target refuses it (400 naming the field and the provider), and a fallback moves on.
 */
import { ValidationError } from '../../core/errors.js';
import { toChatCompletion } from '../providers/anthropic/response.js';
import { AnthropicStreamTranslator } from '../providers/anthropic/stream.js';
import type { ChatCompletion, ChatContext, ChatRequest, MessagesContext, ProviderAdapter, StreamTranslator } from '../providers/types.js';
import type { TargetWire } from './target-wire.js';

/** What the chat form of a Messages request left out (gateway/messages/chat-request.ts). */
export interface Untranslatable {
  param: string;
  what: string;
}

/** What the Messages door gives the pipeline, and how it hears an Anthropic-wire answer. */
export interface MessagesOrigin {
  /** The client's body, as validated. */
  body: Record<string, unknown>;
  /** Its chat form, before routing (what override_params changed is told apart from it). */
  chat: ChatRequest;
  headers: MessagesContext['headers'];
  untranslatable: readonly Untranslatable[];
  /** A piece of an Anthropic-wire stream, in Anthropic's server-sent events, as it arrives. */
  relay(bytes: Uint8Array): void;
  /** Set by an Anthropic-wire JSON answer: the completion read from it and its bytes as they came. */
  answered?: { completion: ChatCompletion; bytes: Buffer };
}

/** Settings a config's override_params may change that mean the same in both wires: chat name, Anthropic name. */
const SHARED_SETTINGS = [
  ['temperature', 'temperature'],
  ['top_p', 'top_p'],
  ['max_completion_tokens', 'max_tokens'],
  ['max_tokens', 'max_tokens'],
] as const;

function nativeContext(origin: MessagesOrigin, context: ChatContext): MessagesContext {
  // The routed model (a config target's, without `@slug/`) and what override_params changed of the
  // shared settings; everything else as the client sent it.
  const body: Record<string, unknown> = { ...origin.body, model: context.request.model };
  for (const [chat, anthropic] of SHARED_SETTINGS) if (context.request[chat] != null && context.request[chat] !== origin.chat[chat]) body[anthropic] = context.request[chat];
  return { ...context, body, headers: origin.headers };
}

/** Providers whose chat translation takes Anthropic-style `thinking` and refuses reasoning_effort; the rest take reasoning_effort. */
const THINKING_PROVIDERS = new Set(['anthropic', 'bedrock', 'google', 'vertex-ai']);

/** The Messages request's thinking in the one form the target's provider takes. */
function withReasoningFor(provider: string, context: ChatContext): ChatContext {
  const { thinking, reasoning_effort: effort, ...rest } = context.request;
  if (thinking == null && effort == null) return context;
  const request = THINKING_PROVIDERS.has(provider) ? { ...rest, ...(thinking != null ? { thinking } : {}) } : { ...rest, ...(effort != null ? { reasoning_effort: effort } : {}) };
  return { ...context, request };
}

function refuseUntranslatable(origin: MessagesOrigin, provider: string): void {
  const first = origin.untranslatable[0];
  if (first) throw new ValidationError(`${provider} cannot take ${first.what} (only Anthropic-wire targets can)`, first.param, 'unsupported_parameter');
}

/** The stream as read for the pipeline, each piece relayed first. */
class RelayedStream implements StreamTranslator {
  private readonly inner: AnthropicStreamTranslator;
  private readonly decoder;

  constructor(
    private readonly origin: MessagesOrigin,
    context: ChatContext,
    adapter: ProviderAdapter,
  ) {
    this.inner = new AnthropicStreamTranslator(context);
    this.decoder = adapter.createMessagesStreamDecoder?.();
  }

  push(bytes: Uint8Array) {
    const sse = this.decoder ? this.decoder.push(bytes) : bytes;
    if (sse.length > 0) this.origin.relay(sse);
    return this.inner.push(sse);
  }

  end() {
    return this.inner.end();
  }

  usage() {
    return this.inner.usage();
  }
}

export function messagesWire(origin: MessagesOrigin, adapter: ProviderAdapter, chat: TargetWire): TargetWire {
  // Decided by build (a provider may serve some models on the Messages wire and others not).
  let native = false;
  return {
    async build(context) {
      const upstream = adapter.buildMessagesRequest ? await adapter.buildMessagesRequest(nativeContext(origin, context)) : undefined;
      native = upstream !== undefined;
      if (upstream) return upstream;
      refuseUntranslatable(origin, adapter.name);
      return chat.build(withReasoningFor(adapter.name, context));
    },
    read(bytes, context) {
      if (!native) return chat.read(bytes, context);
      const completion = toChatCompletion(JSON.parse(bytes.toString()), context);
      origin.answered = { completion, bytes };
      return completion;
    },
    translator(context) {
      return native ? new RelayedStream(origin, context, adapter) : chat.translator(context);
    },
  };
}
