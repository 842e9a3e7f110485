/**
 * `mock_response`: the answer gw makes itself, with no upstream call and no provider key, so gw
 * can be tried (and tested) before any provider is set up. Usage is estimated like a budget
 * reservation (four characters a token), so limits, logs and metrics see the usual shape.
 */
import { estimatedUsage } from '../limits/request-amounts.js';
import type { ChatCompletion, ChatContext } from '../providers/types.js';

export function mockResponseOf(request: ChatContext['request']): string | undefined {
  const text = (request as { mock_response?: unknown }).mock_response;
  return typeof text === 'string' ? text : undefined;
}

export function mockCompletion(context: ChatContext, text: string): ChatCompletion {
  const prompt = estimatedUsage({ ...context.request, max_tokens: undefined, max_completion_tokens: undefined }).prompt_tokens;
  const completion = Math.ceil(text.length / 4);
  return {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.request.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}
