/** Anthropic stop_reason -> OpenAI finish_reason. */
import type { FinishReason } from '../types.js';

const FINISH_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  // A server tool loop paused; the turn did end, the caller may continue it.
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function finishReasonOf(stopReason: string | null | undefined): FinishReason {
  return (stopReason && FINISH_REASONS[stopReason]) || 'stop';
}
