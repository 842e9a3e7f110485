/**
 * Converse usage -> OpenAI usage. Bedrock counts cache reads and writes apart from inputTokens;
 * OpenAI's prompt_tokens includes cached tokens, so prompt_tokens adds them back and the details
 * say how many were read from (cached_tokens) and written to (cache_creation_tokens) the cache.
 */
import type { Usage } from '../types.js';
import type { ConverseUsage } from './wire.js';

export function usageOf(usage: ConverseUsage | undefined): Usage {
  const cacheRead = usage?.cacheReadInputTokens ?? 0;
  const cacheWrite = usage?.cacheWriteInputTokens ?? 0;
  const prompt = (usage?.inputTokens ?? 0) + cacheRead + cacheWrite;
  const completion = usage?.outputTokens ?? 0;
  const result: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (usage?.cacheReadInputTokens !== undefined || usage?.cacheWriteInputTokens !== undefined) {
    result.prompt_tokens_details = { cached_tokens: cacheRead, cache_creation_tokens: cacheWrite };
  }
  return result;
}
