/** Converse stopReason -> OpenAI finish_reason. */
import type { FinishReason } from '../types.js';

const FINISH_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  // The context window filled up while generating: the answer was cut for length.
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

/** Unknown or malformed-output reasons end the answer as a plain stop. */
export function finishReasonOf(stopReason: string | undefined): FinishReason {
  return (stopReason && FINISH_REASONS[stopReason]) || 'stop';
}
