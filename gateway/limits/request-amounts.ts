/**
 * What a chat request is expected to use before it runs (the reservation) and what it did use
 * (the settlement). The prompt is estimated at one token per four characters of text; the
 * completion at the request's max_completion_tokens (or max_tokens) times n. A request that sets
 * neither reserves its prompt only, so a burst of such requests can pass a token or cost budget
 * by at most what their completions add; set a maximum to make budgets exact.
 */
import type { EmbeddingRequest, GatewayRequest, Usage } from '../providers/types.js';
import type { Amounts } from './limits-engine.js';
import { costNanoUsd } from './pricing/cost.js';
import type { ModelPrice } from './pricing/price-catalog.js';

function textLength(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  return content.reduce((sum: number, part: unknown) => {
    const text = (part as { text?: unknown })?.text;
    return sum + (typeof text === 'string' ? text.length : 0);
  }, 0);
}

/** Embeddings input: strings at four characters a token, token ids counted as they are. */
function embeddingInputTokens(input: EmbeddingRequest['input']): number {
  const items: unknown[] = typeof input === 'string' ? [input] : input;
  return items.reduce((sum: number, item) => {
    if (typeof item === 'string') return sum + Math.ceil(item.length / 4);
    if (Array.isArray(item)) return sum + item.length;
    return sum + 1;
  }, 0);
}

export function estimatedUsage(request: GatewayRequest): { prompt_tokens: number; completion_tokens: number } {
  if (!('messages' in request)) return { prompt_tokens: embeddingInputTokens(request.input), completion_tokens: 0 };
  const characters = request.messages.reduce((sum, message) => sum + textLength((message as { content?: unknown }).content), 0);
  const maxOut = request.max_completion_tokens ?? request.max_tokens ?? 0;
  return { prompt_tokens: Math.ceil(characters / 4), completion_tokens: maxOut * (request.n ?? 1) };
}

/** `price` undefined: the model is unpriced, which cost budgets report rather than count as free. */
export function expectedAmounts(request: GatewayRequest, price: ModelPrice | undefined, multiplier: number): Amounts {
  const usage = estimatedUsage(request);
  const amounts: Amounts = { requests: 1, tokens: usage.prompt_tokens + usage.completion_tokens, cost: costNanoUsd(price, usage, multiplier) };
  if (!price) amounts.unpriced = true;
  return amounts;
}

/** A cache hit or a failed call used no provider tokens: it still counts as a request. */
export function actualAmounts(usage: Usage | undefined, price: ModelPrice | undefined, multiplier: number): Amounts {
  if (!usage) return { requests: 1, tokens: 0, cost: 0 };
  return { requests: 1, tokens: usage.prompt_tokens + usage.completion_tokens, cost: costNanoUsd(price, usage, multiplier) };
}
