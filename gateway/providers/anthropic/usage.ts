/**
 * Anthropic usage -> OpenAI usage. Anthropic counts cache reads and writes apart from
 * input_tokens; OpenAI's prompt_tokens includes cached tokens, so prompt_tokens adds them back and
 * the details say how many were read from (cached_tokens) and written to (cache_creation_tokens)
 * the cache. Thinking tokens, when reported, are completion_tokens_details.reasoning_tokens.
 */
import type { Usage } from '../types.js';
import type { AnthropicUsage } from './wire.js';

export function usageOf(usage: AnthropicUsage | undefined): Usage {
  const cacheRead = usage?.cache_read_input_tokens ?? 0;
  const cacheWrite = usage?.cache_creation_input_tokens ?? 0;
  const prompt = (usage?.input_tokens ?? 0) + cacheRead + cacheWrite;
  const completion = usage?.output_tokens ?? 0;
  const result: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (usage?.cache_read_input_tokens != null || usage?.cache_creation_input_tokens != null) {
    result.prompt_tokens_details = { cached_tokens: cacheRead, cache_creation_tokens: cacheWrite };
  }
  const thinking = usage?.output_tokens_details?.thinking_tokens;
  if (thinking != null) result.completion_tokens_details = { reasoning_tokens: thinking };
  return result;
}

/** Stream usage arrives in parts: message_start holds the input side, message_delta the running totals. */
export function mergeUsage(seen: AnthropicUsage, update: AnthropicUsage | undefined): AnthropicUsage {
  const merged = { ...seen };
  for (const [key, value] of Object.entries(update ?? {}) as Array<[keyof AnthropicUsage, never]>) {
    if (value != null) merged[key] = value;
  }
  return merged;
}
