/** Converse JSON answer -> OpenAI chat completion. */
import type { ChatCompletion, ChatContext } from '../types.js';
import { finishReasonOf } from './stop-reason.js';
import { usageOf } from './usage.js';
import type { ConverseResponseBody } from './wire.js';

type ResponseMessage = ChatCompletion['choices'][number]['message'];

export function toChatCompletion(raw: unknown, context: ChatContext): ChatCompletion {
  const body = (raw ?? {}) as ConverseResponseBody;
  const blocks = body.output?.message?.content ?? [];
  const text: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: NonNullable<ResponseMessage['tool_calls']> = [];
  for (const block of blocks) {
    if ('text' in block) text.push(block.text);
    else if ('toolUse' in block) {
      toolCalls.push({ id: block.toolUse.toolUseId, type: 'function', function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) } });
    } else if ('reasoningContent' in block && block.reasoningContent.reasoningText) reasoning.push(block.reasoningContent.reasoningText.text);
  }
  const message: ResponseMessage = { role: 'assistant', content: text.length > 0 ? text.join('') : null, refusal: null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  // Thinking text is a gw extension: only when the caller turned strict OpenAI compliance off.
  if (reasoning.length > 0 && context.target.strictOpenAiCompliance === false) message.reasoning_content = reasoning.join('');
  return {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.request.model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(body.stopReason), logprobs: null }],
    usage: usageOf(body.usage),
  };
}
