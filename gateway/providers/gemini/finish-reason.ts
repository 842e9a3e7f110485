/** Gemini finishReason -> OpenAI finish_reason. A candidate that calls functions finishes with tool_calls. */
import type { FinishReason } from '../types.js';

const FINISH_REASONS: Record<string, FinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
};

export function finishReasonOf(reason: string | undefined, callsFunctions: boolean): FinishReason {
  if (callsFunctions && (reason === undefined || reason === 'STOP')) return 'tool_calls';
  // OTHER, LANGUAGE, MALFORMED_FUNCTION_CALL and reasons added later: the answer did end.
  return (reason && FINISH_REASONS[reason]) || 'stop';
}
