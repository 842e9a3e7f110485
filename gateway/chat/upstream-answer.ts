/** What a successful upstream attempt hands to the respond stage. */
import type { ChatCompletion, ChatRequest, GatewayAnswer, GatewayRequest, StreamTranslator, Usage } from '../providers/types.js';
import type { UpstreamAttempt } from '../transport/upstream-attempt.js';

export type { GatewayAnswer, GatewayRequest };

export function isChatRequest(request: GatewayRequest): request is ChatRequest {
  return 'messages' in request;
}

export function isChatCompletion(answer: GatewayAnswer): answer is ChatCompletion {
  return answer.object === 'chat.completion';
}

/** An answer's usage in chat terms (embeddings produce no completion tokens). */
export function usageOf(answer: GatewayAnswer): Usage | undefined {
  if (isChatCompletion(answer)) return answer.usage;
  return { prompt_tokens: answer.usage.prompt_tokens, completion_tokens: 0, total_tokens: answer.usage.total_tokens };
}

export type UpstreamAnswer =
  | { kind: 'json'; completion: GatewayAnswer }
  | {
      kind: 'stream';
      /** The upstream body, still arriving; the attempt's timeout keeps covering it. */
      body: AsyncIterable<Uint8Array>;
      translator: StreamTranslator;
      attempt: UpstreamAttempt;
    };
