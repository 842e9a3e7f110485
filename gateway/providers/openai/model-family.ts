/**
 * OpenAI's reasoning families (the gpt-5 series and the o-series) take only
 * `max_completion_tokens`; `max_tokens` is refused here, before any upstream call, with a message
 * that says what to send instead. The other families accept both.
 */
import { ValidationError } from '../../../core/errors.js';
import type { ChatRequest } from '../types.js';

const REASONING_FAMILY = /^(?:gpt-5|o\d)(?:$|[-.])/;

/** True for gpt-5*, o1*, o3*, o4*... (a `@slug/` or `org/` prefix is ignored). */
export function isReasoningModel(model: string): boolean {
  const bare = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return REASONING_FAMILY.test(bare);
}

export function assertTokenLimitField(request: ChatRequest): void {
  if (request.max_tokens != null && isReasoningModel(request.model)) {
    throw new ValidationError(
      `max_tokens is not supported with ${request.model} (gpt-5 and o-series models); send max_completion_tokens instead`,
      'max_tokens',
      'unsupported_parameter',
    );
  }
}
