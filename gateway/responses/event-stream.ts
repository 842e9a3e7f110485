/**
 * Chat chunks as the Responses API's stream: `response.created` and `response.in_progress`, then
 * per output item `response.output_item.added`, its deltas (reasoning summary text, output text
 * with its content part or a refusal, function call arguments) and its `.done` events, then
 * `response.completed` (or `response.incomplete`) with the whole response. A stream that fails
 * midway ends with `response.failed` and an `error` event. Every event carries its sequence_number.
 * A custom tool's input arrives inside its function's JSON arguments, so it is told whole when the
 * call ends (`response.custom_tool_call_input.delta` and `.done`).
 */
import type { ChatCompletionChunk, FinishReason, Usage } from '../providers/types.js';
import type { SseWriter } from '../chat/sse-writer.js';
import { newItemId } from './ids.js';
import { finishedResponse } from './response-object.js';
import type { GwToolRun } from './gw-tools.js';
import { callItemOf, type ChatToolCall, type ToolPlan } from './tools.js';
import type { CustomToolCallOutput, FunctionCallOutput, OutputItem, OutputMessage, ReasoningOutput, ResponseObject } from './wire.js';

type Open =
  | { kind: 'reasoning'; index: number; item: ReasoningOutput; text: string }
  | { kind: 'message'; index: number; item: OutputMessage; text: string; refusal?: boolean }
  | { kind: 'function_call'; index: number; item: FunctionCallOutput | CustomToolCallOutput; toolIndex: number; chatName: string; args: string };

export interface StreamFailure {
  code?: string;
  message?: string;
  param?: string | null;
}

export class ResponseEventStream {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  /** Items still streaming, in output order: each is closed when the model moves on, or at the end. */
  private open: Open[] = [];
  private finishReason: FinishReason | null = null;
  /** The model the provider's chunks name (the final response reports it, as a JSON answer does). */
  private model: string | undefined;
  /** This round's assistant turn as chat (for the conversation when gw runs tools and asks again). */
  private round = { text: '', calls: new Map<number, ChatToolCall>() };
  /** Chat tool names gw runs itself (gw-tools.ts): their calls are kept back, not streamed as function calls. */
  hidden: (chatName: string) => boolean = () => false;
  /** The annotations of a finished output text (file citations). */
  annotate: (text: string) => Array<Record<string, unknown>> = () => [];

  constructor(
    private readonly writer: SseWriter,
    private readonly pending: ResponseObject,
    private readonly tools: ToolPlan,
    private readonly now: () => number,
  ) {}

  private async emit(type: string, fields: Record<string, unknown>): Promise<void> {
    await this.writer.event(type, { type, ...fields, sequence_number: this.sequence++ });
  }

  async start(): Promise<void> {
    await this.emit('response.created', { response: this.pending });
    await this.emit('response.in_progress', { response: this.pending });
  }

  async push(chunk: ChatCompletionChunk): Promise<void> {
    if (chunk.model) this.model = chunk.model;
    const choice = chunk.choices[0];
    if (!choice) return;
    const delta = choice.delta as typeof choice.delta & { reasoning_content?: string | null };
    if (delta.reasoning_content) await this.reasoningDelta(delta.reasoning_content);
    if (delta.content) this.round.text += delta.content;
    for (const call of delta.tool_calls ?? []) this.roundCall(call);
    if (delta.content) await this.textDelta(delta.content, false);
    if (delta.refusal) await this.textDelta(delta.refusal, true);
    for (const call of delta.tool_calls ?? []) if (!this.hidden(this.round.calls.get(call.index)!.function.name)) await this.toolCallDelta(call);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  private roundCall(call: NonNullable<ChatCompletionChunk['choices'][number]['delta']['tool_calls']>[number]): void {
    const known = this.round.calls.get(call.index);
    if (!known) {
      this.round.calls.set(call.index, { id: call.id ?? newItemId('fc'), type: 'function', function: { name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' } });
      return;
    }
    if (call.function?.name && !this.hidden(known.function.name)) known.function.name += call.function.name;
    if (call.function?.arguments) known.function.arguments += call.function.arguments;
  }

  /** Ends a round of the model: closes its items and returns its assistant turn (text and every call). */
  async endRound(): Promise<{ text: string; calls: ChatToolCall[] }> {
    await this.closeAll();
    const round = { text: this.round.text, calls: [...this.round.calls.values()] };
    this.round = { text: '', calls: new Map() };
    return round;
  }

  /** A hosted tool call gw ran: added, its progress events, done. */
  async hostedItem(run: GwToolRun): Promise<void> {
    await this.closeAll();
    const index = this.output.length;
    this.output.push(run.item);
    await this.emit('response.output_item.added', { output_index: index, item: { ...run.item, ...('status' in run.item ? { status: 'in_progress' } : {}) } });
    for (const type of run.progress) await this.emit(type, { item_id: run.item.id, output_index: index });
    await this.emit('response.output_item.done', { output_index: index, item: run.item });
  }

  /** Closes every open item and returns the final response (to store before `finish` announces it). */
  async closeOutput(usage: Usage | undefined): Promise<ResponseObject> {
    await this.closeAll();
    return finishedResponse({ ...this.pending, model: this.model ?? this.pending.model }, this.output, this.finishReason, usage, this.now());
  }

  async finish(response: ResponseObject): Promise<void> {
    await this.emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
  }

  async fail(failure: StreamFailure, usage: Usage | undefined): Promise<void> {
    const code = failure.code ?? 'server_error';
    const message = failure.message ?? 'The model stream ended early';
    const response: ResponseObject = { ...finishedResponse(this.pending, this.output, null, usage, this.now()), status: 'failed', completed_at: null, error: { code, message } };
    await this.emit('response.failed', { response });
    // Last: the official client raises the `error` event as an APIError, so it reads response.failed first.
    // OpenAI's error event has the fields at the top; the Open Responses one nests them under `error`.
    // Both schemas require `param` here (null when no field is at fault), unlike gw's error bodies.
    const param = failure.param ?? null;
    await this.emit('error', { code, message, param, error: { type: 'server_error', code, message, param } });
  }

  private async openItem(entry: Open): Promise<void> {
    this.output.push(entry.item);
    this.open.push(entry);
    await this.emit('response.output_item.added', { output_index: entry.index, item: { ...entry.item, ...(entry.kind === 'message' ? { content: [] } : {}), status: 'in_progress' } });
  }

  private async reasoningDelta(text: string): Promise<void> {
    let entry = this.open.find((open) => open.kind === 'reasoning');
    if (!entry) {
      await this.closeAll();
      entry = { kind: 'reasoning', index: this.output.length, item: { type: 'reasoning', id: newItemId('rs'), summary: [], status: 'in_progress' }, text: '' };
      await this.openItem(entry);
      await this.emit('response.reasoning_summary_part.added', { item_id: entry.item.id, output_index: entry.index, summary_index: 0, part: { type: 'summary_text', text: '' } });
    }
    entry.text += text;
    await this.emit('response.reasoning_summary_text.delta', { item_id: entry.item.id, output_index: entry.index, summary_index: 0, delta: text });
  }

  /** Output text, or a refusal (OpenAI's models), as the message item's one content part. */
  private async textDelta(text: string, refusal: boolean): Promise<void> {
    let entry = this.open.find((open): open is Extract<Open, { kind: 'message' }> => open.kind === 'message');
    if (!entry) {
      await this.closeKind('reasoning');
      entry = { kind: 'message', index: this.output.length, item: { type: 'message', id: newItemId('msg'), status: 'in_progress', role: 'assistant', content: [] }, text: '', refusal };
      await this.openItem(entry);
      const part = refusal ? { type: 'refusal', refusal: '' } : { type: 'output_text', text: '', annotations: [] };
      await this.emit('response.content_part.added', { item_id: entry.item.id, output_index: entry.index, content_index: 0, part });
    }
    entry.text += text;
    const at = { item_id: entry.item.id, output_index: entry.index, content_index: 0 };
    if (entry.refusal) await this.emit('response.refusal.delta', { ...at, delta: text });
    else await this.emit('response.output_text.delta', { ...at, delta: text, logprobs: [] });
  }

  private async toolCallDelta(call: NonNullable<ChatCompletionChunk['choices'][number]['delta']['tool_calls']>[number]): Promise<void> {
    let entry = this.open.find((open): open is Extract<Open, { kind: 'function_call' }> => open.kind === 'function_call' && open.toolIndex === call.index);
    if (!entry) {
      await this.closeKind('reasoning');
      const chatName = call.function?.name ?? '';
      const item = callItemOf({ id: call.id ?? newItemId('fc'), type: 'function', function: { name: chatName, arguments: '' } }, this.tools, 'in_progress');
      entry = { kind: 'function_call', index: this.output.length, item, toolIndex: call.index, chatName, args: '' };
      await this.openItem(entry);
    } else if (call.function?.name) entry.chatName += call.function.name;
    const args = call.function?.arguments;
    if (args) {
      entry.args += args;
      if (entry.item.type === 'function_call') {
        entry.item.arguments += args;
        await this.emit('response.function_call_arguments.delta', { item_id: entry.item.id, output_index: entry.index, delta: args });
      }
    }
  }

  private async closeKind(kind: Open['kind']): Promise<void> {
    for (const entry of this.open.filter((open) => open.kind === kind)) await this.close(entry);
  }

  private async closeAll(): Promise<void> {
    for (const entry of [...this.open]) await this.close(entry);
  }

  private async close(entry: Open): Promise<void> {
    this.open = this.open.filter((open) => open !== entry);
    const at = { item_id: entry.item.id, output_index: entry.index };
    if (entry.kind === 'reasoning') {
      const part = { type: 'summary_text' as const, text: entry.text };
      entry.item.summary = [part];
      await this.emit('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: entry.text });
      await this.emit('response.reasoning_summary_part.done', { ...at, summary_index: 0, part });
    } else if (entry.kind === 'message' && entry.refusal) {
      const part = { type: 'refusal' as const, refusal: entry.text };
      entry.item.content = [part];
      await this.emit('response.refusal.done', { ...at, content_index: 0, refusal: entry.text });
      await this.emit('response.content_part.done', { ...at, content_index: 0, part });
    } else if (entry.kind === 'message') {
      const part = { type: 'output_text' as const, text: entry.text, annotations: this.annotate(entry.text) };
      entry.item.content = [part];
      await this.emit('response.output_text.done', { ...at, content_index: 0, text: entry.text, logprobs: [] });
      await this.emit('response.content_part.done', { ...at, content_index: 0, part });
    } else {
      // The whole name is known now (a provider may split it across chunks).
      const final = callItemOf({ id: entry.item.call_id, type: 'function', function: { name: entry.chatName, arguments: entry.args } }, this.tools);
      entry.item = { ...final, id: entry.item.id, status: 'in_progress' };
      if (entry.item.type === 'custom_tool_call') {
        await this.emit('response.custom_tool_call_input.delta', { ...at, delta: entry.item.input });
        await this.emit('response.custom_tool_call_input.done', { ...at, input: entry.item.input });
      } else await this.emit('response.function_call_arguments.done', { ...at, name: entry.item.name, arguments: entry.item.arguments });
    }
    entry.item.status = entry.kind === 'message' && this.finishReason === 'length' ? 'incomplete' : 'completed';
    const item = entry.item;
    this.output[entry.index] = item;
    await this.emit('response.output_item.done', { output_index: entry.index, item });
  }
}
