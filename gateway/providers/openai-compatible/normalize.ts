/**
 * OpenAI-shaped answers from OpenAI and the compatible hosts, brought to exactly the shape gw
 * promises: required-but-nullable keys present (`logprobs`, `message.refusal`), finish reasons
 * from the OpenAI enum, usage always present, and the non-OpenAI `reasoning_content` kept only
 * when strict OpenAI compliance is off.
 */
import type { ChatCompletion, ChatCompletionChunk, FinishReason, Usage } from '../types.js';

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  function_call: 'function_call',
  // Spellings some compatible hosts use.
  eos: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_call: 'tool_calls',
  model_length: 'length',
  max_tokens: 'length',
};

/** Maps a host's finish reason to OpenAI's; an unknown one becomes `stop` (the answer did end). */
export function openAiFinishReason(reason: unknown): FinishReason {
  return (typeof reason === 'string' && FINISH_REASONS[reason]) || 'stop';
}

export const ZERO_USAGE: Usage = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }) as Usage;

export function normalizeUsage(raw: unknown): Usage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const usage = raw as Usage;
  const prompt = Number.isInteger(usage.prompt_tokens) ? usage.prompt_tokens : 0;
  const completion = Number.isInteger(usage.completion_tokens) ? usage.completion_tokens : 0;
  return { ...usage, prompt_tokens: prompt, completion_tokens: completion, total_tokens: Number.isInteger(usage.total_tokens) ? usage.total_tokens : prompt + completion };
}

type RawMessage = Record<string, unknown>;

export function normalizeCompletion(raw: Record<string, unknown>, fallback: { id: string; created: number; model: string }, strict: boolean): ChatCompletion {
  const choices = Array.isArray(raw.choices) ? (raw.choices as Array<Record<string, unknown>>) : [];
  return {
    ...(raw as object),
    id: typeof raw.id === 'string' ? raw.id : fallback.id,
    object: 'chat.completion',
    created: Number.isInteger(raw.created) ? (raw.created as number) : fallback.created,
    model: typeof raw.model === 'string' ? raw.model : fallback.model,
    choices: choices.map((choice, index) => {
      const message = { ...((choice.message as RawMessage | undefined) ?? {}) };
      if (strict) delete message.reasoning_content;
      // Some hosts send "" or a non-string here; the spec allows only string or null.
      if (typeof message.reasoning_content !== 'string') delete message.reasoning_content;
      // Hosts send null where OpenAI omits the key; the spec types these as arrays/objects.
      if (message.tool_calls === null) delete message.tool_calls;
      if (message.function_call === null) delete message.function_call;
      if (message.content === undefined) message.content = null;
      if (message.refusal === undefined) message.refusal = null;
      message.role = 'assistant';
      return {
        ...choice,
        index: Number.isInteger(choice.index) ? (choice.index as number) : index,
        message: message as ChatCompletion['choices'][number]['message'],
        finish_reason: openAiFinishReason(choice.finish_reason),
        logprobs: (choice.logprobs as ChatCompletion['choices'][number]['logprobs']) ?? null,
      };
    }),
    usage: normalizeUsage(raw.usage) ?? { ...ZERO_USAGE },
  } as ChatCompletion;
}

export function normalizeChunk(raw: Record<string, unknown>, fallback: { id: string; created: number; model: string }, strict: boolean): ChatCompletionChunk {
  const choices = Array.isArray(raw.choices) ? (raw.choices as Array<Record<string, unknown>>) : [];
  const chunk = {
    ...(raw as object),
    id: typeof raw.id === 'string' ? raw.id : fallback.id,
    object: 'chat.completion.chunk',
    created: Number.isInteger(raw.created) ? (raw.created as number) : fallback.created,
    model: typeof raw.model === 'string' ? raw.model : fallback.model,
    choices: choices.map((choice, index) => {
      const delta = { ...((choice.delta as RawMessage | undefined) ?? {}) };
      if (strict || typeof delta.reasoning_content !== 'string') delete delta.reasoning_content;
      if (delta.role !== undefined && delta.role !== 'assistant') delta.role = 'assistant';
      if (delta.tool_calls === null) delete delta.tool_calls;
      if (delta.function_call === null) delete delta.function_call;
      return {
        ...choice,
        index: Number.isInteger(choice.index) ? (choice.index as number) : index,
        delta,
        finish_reason: choice.finish_reason === null || choice.finish_reason === undefined ? null : openAiFinishReason(choice.finish_reason),
      };
    }),
  } as ChatCompletionChunk;
  if (raw.usage !== undefined && raw.usage !== null) chunk.usage = normalizeUsage(raw.usage) ?? null;
  return chunk;
}
