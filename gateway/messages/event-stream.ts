/**
 * Chat chunks as Anthropic's stream: `message_start` (then a `ping`), per content block
 * `content_block_start`, its deltas (`thinking_delta`, `text_delta`, `input_json_delta`) and
 * `content_block_stop`, then `message_delta` with the stop reason and usage, and `message_stop`.
 * A block closes when the model moves on to another. A stream that fails midway ends with an
 * `error` event.
 */
import type { SseWriter } from '../chat/sse-writer.js';
import type { ChatCompletionChunk, FinishReason, Usage } from '../providers/types.js';
import { messageId, messagesUsageOf, stopReasonOf } from './message-object.js';
import type { StreamFailure } from './stream-failure.js';
import { anthropicErrorEvent } from './stream-failure.js';

type Open = { kind: 'thinking' | 'text'; index: number } | { kind: 'tool'; index: number; toolIndex: number };

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

export class MessageEventStream {
  private started = false;
  private open: Open | undefined;
  private blocks = 0;
  private finishReason: FinishReason | null = null;
  private usage: Usage | undefined;

  constructor(
    private readonly writer: SseWriter,
    private readonly model: string,
  ) {}

  private async emit(type: string, fields: Record<string, unknown>): Promise<void> {
    await this.writer.event(type, { type, ...fields });
  }

  private async start(chunk: ChatCompletionChunk | undefined): Promise<void> {
    if (this.started) return;
    this.started = true;
    const message = {
      id: messageId(chunk?.id ?? 'gw'),
      type: 'message',
      role: 'assistant',
      model: chunk?.model || this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    await this.emit('message_start', { message });
    await this.emit('ping', {});
  }

  private async close(): Promise<void> {
    if (!this.open) return;
    await this.emit('content_block_stop', { index: this.open.index });
    this.open = undefined;
  }

  private async openBlock(open: Open, block: Record<string, unknown>): Promise<void> {
    await this.close();
    this.open = open;
    this.blocks++;
    await this.emit('content_block_start', { index: open.index, content_block: block });
  }

  async push(chunk: ChatCompletionChunk): Promise<void> {
    await this.start(chunk);
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) return;
    const delta = choice.delta as { content?: string | null; reasoning_content?: string | null; tool_calls?: ToolCallDelta[] };
    if (delta.reasoning_content) {
      if (this.open?.kind !== 'thinking') await this.openBlock({ kind: 'thinking', index: this.blocks }, { type: 'thinking', thinking: '', signature: '' });
      await this.emit('content_block_delta', { index: this.open!.index, delta: { type: 'thinking_delta', thinking: delta.reasoning_content } });
    }
    if (delta.content) {
      if (this.open?.kind !== 'text') await this.openBlock({ kind: 'text', index: this.blocks }, { type: 'text', text: '' });
      await this.emit('content_block_delta', { index: this.open!.index, delta: { type: 'text_delta', text: delta.content } });
    }
    for (const call of delta.tool_calls ?? []) await this.toolCall(call);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  private async toolCall(call: ToolCallDelta): Promise<void> {
    const toolIndex = call.index ?? 0;
    if (this.open?.kind !== 'tool' || this.open.toolIndex !== toolIndex) {
      await this.openBlock({ kind: 'tool', index: this.blocks, toolIndex }, { type: 'tool_use', id: call.id ?? `toolu_${toolIndex}`, name: call.function?.name ?? '', input: {} });
    }
    const args = call.function?.arguments;
    if (args) await this.emit('content_block_delta', { index: this.open!.index, delta: { type: 'input_json_delta', partial_json: args } });
  }

  /** The end of a complete answer: the last block closed, the stop reason and usage, message_stop. */
  async finish(usage: Usage | undefined): Promise<void> {
    await this.start(undefined);
    await this.close();
    await this.emit('message_delta', { delta: { stop_reason: stopReasonOf(this.finishReason ?? 'stop'), stop_sequence: null }, usage: messagesUsageOf(usage ?? this.usage) });
    await this.emit('message_stop', {});
  }

  async fail(failure: StreamFailure): Promise<void> {
    await this.writer.event('error', anthropicErrorEvent(failure));
  }
}
