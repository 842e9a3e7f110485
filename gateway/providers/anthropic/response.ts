/** Anthropic Messages JSON answer -> OpenAI chat completion. */
import type { ChatCompletion, ChatContext } from '../types.js';
import { finishReasonOf } from './stop-reason.js';
import { usageOf } from './usage.js';
import type { AnthropicMessage } from './wire.js';

type ResponseMessage = ChatCompletion['choices'][number]['message'];

export function toChatCompletion(raw: unknown, context: ChatContext): ChatCompletion {
  const body = (raw ?? {}) as AnthropicMessage;
  const text: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: NonNullable<ResponseMessage['tool_calls']> = [];
  for (const block of body.content ?? []) {
    if (block.type === 'text') text.push(block.text);
    else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type === 'thinking') reasoning.push(block.thinking);
  }
  const message: ResponseMessage = { role: 'assistant', content: text.length > 0 ? text.join('') : null, refusal: null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  // Thinking text is a gw extension: only when the caller turned strict OpenAI compliance off.
  if (reasoning.length > 0 && context.target.strictOpenAiCompliance === false) message.reasoning_content = reasoning.join('');
  return {
    id: body.id ?? context.id,
    object: 'chat.completion',
    created: context.created,
    model: body.model ?? context.request.model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(body.stop_reason), logprobs: null }],
    usage: usageOf(body.usage),
  };
}
