/**
 * Anthropic Messages SSE stream -> OpenAI chat.completion.chunk objects.
 * message_start -> role chunk; content_block_start with tool_use -> a tool call (index, id, name);
 * content_block_delta: text_delta -> content, input_json_delta -> tool call arguments,
 * thinking_delta -> reasoning_content (strict off only); message_delta -> finish_reason;
 * message_stop -> usage chunk when stream_options.include_usage. ping and content_block_stop carry
 * nothing. An `error` event becomes an UpstreamError: chunks decoded before it in the same push are
 * still returned, and the error is thrown by the next push or end. A stream without message_stop
 * was cut short.
 */
import { UpstreamError } from '../../../core/errors.js';
import { SseDecoder, type SseEvent } from '../sse-decoder.js';
import type { ChatCompletionChunk, ChatContext, StreamTranslator, Usage } from '../types.js';
import { streamErrorOf } from './errors.js';
import { finishReasonOf } from './stop-reason.js';
import { mergeUsage, usageOf } from './usage.js';
import type { AnthropicMessage, AnthropicResponseBlock, AnthropicUsage } from './wire.js';

type Delta = ChatCompletionChunk['choices'][number]['delta'];

interface StreamEvent {
  type?: string;
  message?: AnthropicMessage;
  index?: number;
  content_block?: AnthropicResponseBlock;
  delta?: { type?: string; text?: string; partial_json?: string; thinking?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
  error?: unknown;
}

export class AnthropicStreamTranslator implements StreamTranslator {
  private readonly sse = new SseDecoder();
  /** content block index -> OpenAI tool call index (tool calls are numbered apart from text blocks). */
  private readonly toolCallIndexes = new Map<number, number>();
  private failure: UpstreamError | undefined;
  private stopped = false;
  private rawUsage: AnthropicUsage = {};
  private seenUsage: Usage | undefined;
  private id: string;
  private model: string;

  constructor(private readonly context: ChatContext) {
    this.id = context.id;
    this.model = context.request.model;
  }

  push(bytes: Uint8Array): ChatCompletionChunk[] {
    if (this.failure) throw this.failure;
    return this.translateAll(this.sse.push(bytes));
  }

  end(): ChatCompletionChunk[] {
    if (this.failure) throw this.failure;
    const chunks = this.translateAll(this.sse.end());
    if (this.failure) throw this.failure;
    if (!this.stopped) throw new UpstreamError(502, 'anthropic stream ended before message_stop', 'upstream_stream_incomplete');
    return chunks;
  }

  usage(): Usage | undefined {
    return this.seenUsage;
  }

  private translateAll(events: SseEvent[]): ChatCompletionChunk[] {
    const chunks: ChatCompletionChunk[] = [];
    for (const event of events) {
      if (this.failure || this.stopped) break;
      this.translate(parseEvent(event), chunks);
    }
    if (this.failure && chunks.length === 0) throw this.failure;
    return chunks;
  }

  private translate(event: StreamEvent, chunks: ChatCompletionChunk[]): void {
    switch (event.type) {
      case 'message_start':
        this.id = event.message?.id ?? this.id;
        this.model = event.message?.model ?? this.model;
        this.recordUsage(event.message?.usage);
        chunks.push(this.chunk({ role: 'assistant', content: '' }));
        return;
      case 'content_block_start': {
        const block = event.content_block;
        if (block?.type === 'tool_use') {
          const index = this.toolCallIndex(event.index ?? 0);
          chunks.push(this.chunk({ tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] }));
        } else if (block?.type === 'text' && block.text !== '') chunks.push(this.chunk({ content: block.text }));
        return;
      }
      case 'content_block_delta':
        this.translateDelta(event, chunks);
        return;
      case 'message_delta':
        this.recordUsage(event.usage);
        if (event.delta?.stop_reason) chunks.push(this.chunk({}, finishReasonOf(event.delta.stop_reason)));
        return;
      case 'message_stop':
        this.stopped = true;
        if (this.context.request.stream_options?.include_usage) chunks.push({ ...this.chunk({}), choices: [], usage: this.usage() ?? usageOf(undefined) });
        return;
      case 'error':
        this.failure = streamErrorOf(event);
        return;
      default:
        // ping, content_block_stop and event types added later carry nothing for OpenAI.
        return;
    }
  }

  private translateDelta(event: StreamEvent, chunks: ChatCompletionChunk[]): void {
    const delta = event.delta ?? {};
    if (delta.type === 'text_delta' && delta.text !== undefined) chunks.push(this.chunk({ content: delta.text }));
    else if (delta.type === 'input_json_delta' && delta.partial_json) {
      const index = this.toolCallIndex(event.index ?? 0);
      chunks.push(this.chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] }));
    } else if (delta.type === 'thinking_delta' && delta.thinking !== undefined && this.context.target.strictOpenAiCompliance === false) {
      chunks.push(this.chunk({ reasoning_content: delta.thinking }));
    }
  }

  private recordUsage(update: AnthropicUsage | undefined): void {
    this.rawUsage = mergeUsage(this.rawUsage, update);
    this.seenUsage = usageOf(this.rawUsage);
  }

  private toolCallIndex(blockIndex: number): number {
    let index = this.toolCallIndexes.get(blockIndex);
    if (index === undefined) {
      index = this.toolCallIndexes.size;
      this.toolCallIndexes.set(blockIndex, index);
    }
    return index;
  }

  private chunk(delta: Delta, finishReason: ChatCompletionChunk['choices'][number]['finish_reason'] = null): ChatCompletionChunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.context.created, model: this.model, choices: [{ index: 0, delta, finish_reason: finishReason }] };
  }
}

function parseEvent(event: SseEvent): StreamEvent {
  try {
    const parsed = JSON.parse(event.data) as StreamEvent;
    // The SSE `event:` name and the payload's `type` agree; the payload is what Anthropic documents.
    return { ...parsed, type: parsed.type ?? event.event };
  } catch {
    throw new UpstreamError(502, 'anthropic sent a stream event that is not JSON', 'upstream_malformed_stream');
  }
}
