/**
 * A chat completion as an Anthropic message: reasoning as a thinking block, the text as a text
 * block, tool calls as tool_use blocks (arguments parsed), the finish reason as stop_reason, and
 * usage split back the way Anthropic counts it (input_tokens without the cache's reads and writes,
 * which are cache_read_input_tokens and cache_creation_input_tokens).
 */
import type { ChatCompletion, FinishReason, Usage } from '../providers/types.js';
import type { AnthropicMessageObject, Block, MessagesUsage } from './wire.js';

const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

export function stopReasonOf(reason: FinishReason | string | null | undefined): string | null {
  if (reason === null || reason === undefined) return null;
  return STOP_REASONS[reason] ?? 'end_turn';
}

export function messagesUsageOf(usage: Usage | undefined): MessagesUsage {
  const cacheRead = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = (usage?.prompt_tokens_details as { cache_creation_tokens?: number } | undefined)?.cache_creation_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cacheRead - cacheWrite),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}

/** A tool call's arguments as the tool_use block's input; text that is not a JSON object stays readable. */
export function toolInput(args: string | undefined): unknown {
  if (!args) return {};
  try {
    const parsed = JSON.parse(args) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : { value: parsed };
  } catch {
    return { arguments: args };
  }
}

/** Message ids as Anthropic writes them (`msg_...`); a provider's own id is kept after the prefix. */
export function messageId(id: string): string {
  return id.startsWith('msg_') ? id : `msg_${id.replace(/^chatcmpl-/, '')}`;
}

export function messageOf(completion: ChatCompletion): AnthropicMessageObject {
  const choice = completion.choices[0];
  const message = (choice?.message ?? {}) as { content?: string | null; reasoning_content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
  const content: Block[] = [];
  if (message.reasoning_content) content.push({ type: 'thinking', thinking: message.reasoning_content, signature: '' });
  if (message.content) content.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls ?? []) content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
  return {
    id: messageId(completion.id),
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason),
    stop_sequence: null,
    usage: messagesUsageOf(completion.usage),
  };
}
