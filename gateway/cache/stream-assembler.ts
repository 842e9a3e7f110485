/**
 * Rebuilds the chat completion a stream carried, chunk by chunk, so a streamed answer can be
 * cached like a plain one. Only a stream that ended cleanly may be stored (the caller knows).
 */
import type { ChatCompletion, ChatCompletionChunk, FinishReason, Usage } from '../providers/types.js';

type Choice = ChatCompletion['choices'][number];
type ToolCall = NonNullable<Choice['message']['tool_calls']>[number];

interface ChoiceState {
  content: string | null;
  refusal: string | null;
  reasoning: string | undefined;
  toolCalls: ToolCall[];
  finishReason: FinishReason | null;
}

export class StreamAssembler {
  private readonly choices = new Map<number, ChoiceState>();
  private head: Pick<ChatCompletionChunk, 'id' | 'created' | 'model' | 'system_fingerprint'> | undefined;
  private usage: Usage | undefined;

  push(chunk: ChatCompletionChunk): void {
    this.head ??= { id: chunk.id, created: chunk.created, model: chunk.model, system_fingerprint: chunk.system_fingerprint };
    if (chunk.usage) this.usage = chunk.usage;
    for (const choice of chunk.choices) {
      const state = this.choices.get(choice.index) ?? { content: null, refusal: null, reasoning: undefined, toolCalls: [], finishReason: null };
      this.choices.set(choice.index, state);
      const delta = choice.delta;
      if (typeof delta.content === 'string') state.content = (state.content ?? '') + delta.content;
      if (typeof delta.refusal === 'string') state.refusal = (state.refusal ?? '') + delta.refusal;
      if (typeof delta.reasoning_content === 'string') state.reasoning = (state.reasoning ?? '') + delta.reasoning_content;
      for (const call of delta.tool_calls ?? []) {
        const existing = (state.toolCalls[call.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (call.id) existing.id = call.id;
        if (call.function?.name) existing.function.name += call.function.name;
        if (call.function?.arguments) existing.function.arguments += call.function.arguments;
      }
      if (choice.finish_reason) state.finishReason = choice.finish_reason;
    }
  }

  /** The assembled completion; undefined when no chunk arrived or a choice never finished. */
  completion(): ChatCompletion | undefined {
    if (!this.head || this.choices.size === 0) return undefined;
    const choices: Choice[] = [];
    for (const [index, state] of [...this.choices].sort(([a], [b]) => a - b)) {
      if (!state.finishReason) return undefined;
      const message: Choice['message'] = { role: 'assistant', content: state.content, refusal: state.refusal };
      if (state.toolCalls.length > 0) message.tool_calls = state.toolCalls.filter(Boolean);
      if (state.reasoning !== undefined) message.reasoning_content = state.reasoning;
      choices.push({ index, message, finish_reason: state.finishReason, logprobs: null });
    }
    const completion: ChatCompletion = { id: this.head.id, object: 'chat.completion', created: this.head.created, model: this.head.model, choices };
    if (this.head.system_fingerprint !== undefined) completion.system_fingerprint = this.head.system_fingerprint;
    if (this.usage) completion.usage = this.usage;
    return completion;
  }
}
