/**
 * ConverseStream (AWS event-stream framing) -> OpenAI chat.completion.chunk objects.
 * Events: messageStart -> role chunk; contentBlockStart with toolUse -> a tool call (id, name);
 * contentBlockDelta -> content / tool call arguments / reasoning_content (strict off only);
 * messageStop -> finish_reason; metadata -> usage (a usage chunk when stream_options.include_usage).
 * Exception frames (:message-type exception or error) become an UpstreamError: chunks decoded
 * before it in the same push are still returned, and the error is thrown by the next push or end.
 */
import type { Message } from '@smithy/eventstream-codec';
import { toUtf8 } from '@smithy/util-utf8';
import { UpstreamError } from '../../../core/errors.js';
import type { ChatCompletionChunk, ChatContext, StreamTranslator, Usage } from '../types.js';
import { streamExceptionError } from './errors.js';
import { EventStreamFrames } from './event-stream-frames.js';
import { finishReasonOf } from './stop-reason.js';
import { usageOf } from './usage.js';
import type { ConverseUsage } from './wire.js';

type Delta = ChatCompletionChunk['choices'][number]['delta'];

interface EventPayload {
  contentBlockIndex?: number;
  start?: { toolUse?: { toolUseId: string; name: string } };
  delta?: { text?: string; toolUse?: { input?: string }; reasoningContent?: { text?: string } };
  stopReason?: string;
  usage?: ConverseUsage;
}

function headerString(message: Message, name: string): string | undefined {
  const header = message.headers[name];
  return header?.type === 'string' ? header.value : undefined;
}

function payloadOf(message: Message): unknown {
  if (message.body.length === 0) return {};
  try {
    return JSON.parse(toUtf8(message.body));
  } catch {
    throw new UpstreamError(502, 'bedrock sent an event whose payload is not JSON', 'malformed_stream');
  }
}

export class ConverseStreamTranslator implements StreamTranslator {
  private readonly frames = new EventStreamFrames();
  /** contentBlockIndex -> OpenAI tool call index (tool calls are numbered apart from text blocks). */
  private readonly toolCallIndexes = new Map<number, number>();
  private failure: UpstreamError | undefined;
  private stopped = false;
  private seenUsage: Usage | undefined;

  constructor(private readonly context: ChatContext) {}

  push(bytes: Uint8Array): ChatCompletionChunk[] {
    if (this.failure) throw this.failure;
    const chunks: ChatCompletionChunk[] = [];
    for (const message of this.frames.push(bytes)) {
      const messageType = headerString(message, ':message-type') ?? 'event';
      if (messageType !== 'event') {
        this.failure = this.failureOf(messageType, message);
        break;
      }
      this.translate(headerString(message, ':event-type') ?? '', payloadOf(message) as EventPayload, chunks);
    }
    if (this.failure && chunks.length === 0) throw this.failure;
    return chunks;
  }

  end(): ChatCompletionChunk[] {
    if (this.failure) throw this.failure;
    if (this.frames.bufferedBytes > 0) throw new UpstreamError(502, 'bedrock stream was cut in the middle of an event', 'stream_cut');
    if (!this.stopped) throw new UpstreamError(502, 'bedrock stream ended before messageStop', 'stream_cut');
    return [];
  }

  usage(): Usage | undefined {
    return this.seenUsage;
  }

  private failureOf(messageType: string, message: Message): UpstreamError {
    if (messageType === 'exception') return streamExceptionError(headerString(message, ':exception-type') ?? 'exception', payloadOf(message));
    const code = headerString(message, ':error-code') ?? 'error';
    return new UpstreamError(502, `bedrock stream failed with ${code}: ${headerString(message, ':error-message') ?? 'no message'}`, code);
  }

  private translate(eventType: string, event: EventPayload, chunks: ChatCompletionChunk[]): void {
    switch (eventType) {
      case 'messageStart':
        chunks.push(this.chunk({ role: 'assistant', content: '' }));
        return;
      case 'contentBlockStart': {
        const toolUse = event.start?.toolUse;
        if (!toolUse) return;
        const index = this.toolCallIndex(event.contentBlockIndex ?? 0);
        chunks.push(this.chunk({ tool_calls: [{ index, id: toolUse.toolUseId, type: 'function', function: { name: toolUse.name, arguments: '' } }] }));
        return;
      }
      case 'contentBlockDelta': {
        const delta = event.delta ?? {};
        if (delta.text !== undefined) chunks.push(this.chunk({ content: delta.text }));
        else if (delta.toolUse?.input !== undefined) {
          const index = this.toolCallIndex(event.contentBlockIndex ?? 0);
          chunks.push(this.chunk({ tool_calls: [{ index, function: { arguments: delta.toolUse.input } }] }));
        } else if (delta.reasoningContent?.text !== undefined && this.context.target.strictOpenAiCompliance === false) {
          chunks.push(this.chunk({ reasoning_content: delta.reasoningContent.text }));
        }
        return;
      }
      case 'messageStop':
        this.stopped = true;
        chunks.push(this.chunk({}, finishReasonOf(event.stopReason)));
        return;
      case 'metadata':
        this.seenUsage = usageOf(event.usage);
        if (this.context.request.stream_options?.include_usage) chunks.push({ ...this.chunk({}), choices: [], usage: this.seenUsage });
        return;
      default:
        // contentBlockStop and events this adapter does not translate carry nothing for OpenAI.
        return;
    }
  }

  private toolCallIndex(contentBlockIndex: number): number {
    let index = this.toolCallIndexes.get(contentBlockIndex);
    if (index === undefined) {
      index = this.toolCallIndexes.size;
      this.toolCallIndexes.set(contentBlockIndex, index);
    }
    return index;
  }

  private chunk(delta: Delta, finishReason: ChatCompletionChunk['choices'][number]['finish_reason'] = null): ChatCompletionChunk {
    const { id, created, request } = this.context;
    return { id, object: 'chat.completion.chunk', created, model: request.model, choices: [{ index: 0, delta, finish_reason: finishReason }] };
  }
}
