/**
 * The chat pipeline's other operations, as the HTTP handlers and batch lines both run them:
 * embeddings (vectors encoded as the client asked) and legacy text completions (translated
 * to a chat request going in, answered as a `text_completion` coming out; a stream is written
 * as `text_completion` events by the respond stage).
 */
import type { Call } from '../../core/call.js';
import type { CompletionRequest, EmbeddingList, EmbeddingRequest, TextCompletion } from '../providers/types.js';
import { encodedEmbeddings } from './embedding-encoding.js';
import { runChat, type ChatResult } from './run-chat.js';
import { chatRequestOf, toTextCompletion } from './text-completion.js';
import { isChatCompletion } from './upstream-answer.js';

export interface OperationResult<T> extends Omit<ChatResult, 'completion'> {
  /** Undefined when the answer was streamed. */
  body?: T;
}

export async function runEmbeddings(call: Call, request: EmbeddingRequest): Promise<OperationResult<EmbeddingList>> {
  const { completion, ...result } = await runChat(call, request, { endpoint: 'embeddings' });
  return { ...result, body: completion && !isChatCompletion(completion) ? encodedEmbeddings(completion, request.encoding_format) : undefined };
}

export async function runTextCompletion(call: Call, legacy: CompletionRequest): Promise<OperationResult<TextCompletion>> {
  const { completion, ...result } = await runChat(call, chatRequestOf(legacy), { endpoint: 'completions', textCompletion: legacy });
  if (!completion || !isChatCompletion(completion)) return result;
  // Guardrail results ride along as on a chat answer.
  const hookResults = (completion as { hook_results?: unknown }).hook_results;
  return { ...result, body: { ...toTextCompletion(completion), ...(hookResults ? { hook_results: hookResults } : {}) } as TextCompletion };
}
