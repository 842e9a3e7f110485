/**
 * Gemini usageMetadata -> OpenAI usage. promptTokenCount already includes cached tokens
 * (cachedContentTokenCount says how many); tool-use prompt tokens are input too. Thinking tokens
 * are billed as output, so completion_tokens counts them and the details name them reasoning_tokens.
 */
import type { Usage } from '../types.js';
import type { GeminiUsageMetadata } from './wire.js';

export function usageOf(metadata: GeminiUsageMetadata | undefined): Usage {
  const prompt = (metadata?.promptTokenCount ?? 0) + (metadata?.toolUsePromptTokenCount ?? 0);
  const thoughts = metadata?.thoughtsTokenCount ?? 0;
  const completion = (metadata?.candidatesTokenCount ?? 0) + thoughts;
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: metadata?.totalTokenCount ?? prompt + completion };
  if (metadata?.cachedContentTokenCount != null) usage.prompt_tokens_details = { cached_tokens: metadata.cachedContentTokenCount };
  if (metadata?.thoughtsTokenCount != null) usage.completion_tokens_details = { reasoning_tokens: thoughts };
  return usage;
}
