/**
 * Gemini GenerateContentResponse -> OpenAI chat completion: one choice per candidate. A prompt
 * blocked before any candidate (promptFeedback.blockReason) answers one empty choice finished by
 * content_filter, so the caller sees why instead of an empty list.
 */
import type { ChatCompletion, ChatContext } from '../types.js';
import { sortParts } from './candidate.js';
import { finishReasonOf } from './finish-reason.js';
import { logprobsOf } from './logprobs.js';
import { usageOf } from './usage.js';
import type { GeminiResponse } from './wire.js';

type Choice = ChatCompletion['choices'][number];

export function toChatCompletion(raw: unknown, context: ChatContext): ChatCompletion {
  const body = (raw ?? {}) as GeminiResponse;
  const id = body.responseId ?? context.id;
  const candidates = body.candidates ?? [];
  const choices: Choice[] = candidates.map((candidate, position) => {
    const index = candidate.index ?? position;
    const parts = sortParts(candidate.content?.parts, id, index);
    const message: Choice['message'] = { role: 'assistant', content: parts.text.length > 0 ? parts.text.join('') : null, refusal: null };
    if (parts.toolCalls.length > 0) message.tool_calls = parts.toolCalls;
    // Thinking text is a gw extension: only when the caller turned strict OpenAI compliance off.
    if (parts.reasoning.length > 0 && context.target.strictOpenAiCompliance === false) message.reasoning_content = parts.reasoning.join('');
    return { index, message, finish_reason: finishReasonOf(candidate.finishReason, parts.toolCalls.length > 0), logprobs: logprobsOf(candidate.logprobsResult) };
  });
  if (choices.length === 0 && body.promptFeedback?.blockReason) {
    choices.push({ index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'content_filter', logprobs: null });
  }
  return {
    id,
    object: 'chat.completion',
    created: context.created,
    model: body.modelVersion ?? context.request.model,
    choices,
    usage: usageOf(body.usageMetadata),
  };
}
