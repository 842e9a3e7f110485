/**
 * POST /v1/completions over the chat pipeline. The legacy request becomes a chat request with
 * the prompt as one user message, so limits, guardrails, routing, cache and logs run as for
 * chat. At a target with a native completions endpoint the legacy body goes upstream as it is
 * (with the target's model and override_params); elsewhere the chat request does, which needs
 * one string prompt and none of the legacy-only fields. Answers (and stream chunks) come back
 * chat-shaped and leave as `text_completion` objects.
 */
import { ValidationError } from '../../core/errors.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, CompletionRequest, TextCompletion } from '../providers/types.js';

/** Fields only the legacy endpoint has: kept out of the chat request, sent only to native endpoints. */
const LEGACY_ONLY = ['prompt', 'suffix', 'echo', 'best_of', 'logprobs'] as const;

function promptText(prompt: CompletionRequest['prompt']): string {
  if (typeof prompt === 'string') return prompt;
  return prompt.every((item) => typeof item === 'string') ? prompt.join('\n') : '';
}

export function chatRequestOf(request: CompletionRequest): ChatRequest {
  const chat: Record<string, unknown> = { ...request, messages: [{ role: 'user', content: promptText(request.prompt) }] };
  for (const field of LEGACY_ONLY) delete chat[field];
  return chat as ChatRequest;
}

/** The legacy body for a native endpoint: the client's, with what routing changed (model, override_params). */
export function nativeRequestOf(legacy: CompletionRequest, routed: Record<string, unknown>): CompletionRequest {
  const { messages: _messages, ...changed } = routed;
  return { ...legacy, ...changed } as CompletionRequest;
}

/** A provider without a native endpoint takes what one user message can say. */
export function assertTranslatable(legacy: CompletionRequest, provider: string): void {
  const single = typeof legacy.prompt === 'string' || (legacy.prompt.length === 1 && typeof legacy.prompt[0] === 'string');
  if (!single) throw new ValidationError(`${provider} has no native completions endpoint: send one string prompt`, 'prompt');
  for (const field of ['suffix', 'logprobs'] as const) {
    if (legacy[field] != null) throw new ValidationError(`${provider} has no native completions endpoint: ${field} is not supported`, field);
  }
  if ((legacy.best_of ?? 1) > 1) throw new ValidationError(`${provider} has no native completions endpoint: best_of is not supported`, 'best_of');
  if (legacy.echo === true) throw new ValidationError(`${provider} has no native completions endpoint: echo is not supported`, 'echo');
}

function textFinish(reason: string | null | undefined): TextCompletion['choices'][number]['finish_reason'] {
  if (reason === 'length' || reason === 'content_filter' || reason === null || reason === undefined) return reason ?? null;
  return 'stop';
}

export function toTextCompletion(completion: ChatCompletion): TextCompletion {
  return {
    id: completion.id.replace(/^chatcmpl-/, 'cmpl-'),
    object: 'text_completion',
    created: completion.created,
    model: completion.model,
    ...(completion.system_fingerprint != null ? { system_fingerprint: completion.system_fingerprint } : {}),
    choices: completion.choices.map((choice) => ({ index: choice.index, text: choice.message.content ?? '', finish_reason: textFinish(choice.finish_reason), logprobs: null })),
    ...(completion.usage ? { usage: completion.usage } : {}),
  };
}

export function toTextChunk(chunk: ChatCompletionChunk): TextCompletion {
  return {
    id: chunk.id.replace(/^chatcmpl-/, 'cmpl-'),
    object: 'text_completion',
    created: chunk.created,
    model: chunk.model,
    choices: chunk.choices.map((choice) => ({ index: choice.index, text: choice.delta.content ?? '', finish_reason: textFinish(choice.finish_reason), logprobs: null })),
    ...(chunk.usage ? { usage: chunk.usage } : {}),
  };
}
