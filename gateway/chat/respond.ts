/**
 * The respond stage: a JSON completion (returned to the handler, which the post-response step
 * serialises), or a stream written here as it arrives. A stream that fails after it started ends
 * with one `data: {"error": ...}` event and no `[DONE]`, and the failure is what gets logged.
 */
import { ApiError, errorBody } from '../../core/errors.js';
import { redactedApiError } from '../../core/request-secrets.js';
import { completionToChunks } from '../cache/completion-replay.js';
import { StreamAssembler } from '../cache/stream-assembler.js';
import type { ChatCompletion, ChatCompletionChunk } from '../providers/types.js';
import type { UpstreamAttempt } from '../transport/upstream-attempt.js';
import type { ChatState } from './chat-state.js';
import { SseWriter } from './sse-writer.js';
import { toTextChunk } from './text-completion.js';
import type { UpstreamAnswer } from './upstream-answer.js';

/** Response headers that say who served: x-gw-provider, and with a config the route taken. */
/** The provider that served: the one called, or on a cache hit (no upstream call) the one the served leaf names. */
export function servingProvider(state: ChatState): string | null {
  const leafProvider = state.route?.leaf.settings.provider;
  return state.provider ?? (typeof leafProvider === 'string' ? leafProvider : null);
}

export function servedHeaders(state: ChatState): Record<string, string> {
  const headers: Record<string, string> = { 'x-gw-cache-status': state.cacheStatus };
  const provider = servingProvider(state);
  if (provider) headers['x-gw-provider'] = provider;
  if (state.route) {
    headers['x-gw-retry-attempt-count'] = String(state.route.retries);
    if (state.plan?.mode === 'config') headers['x-gw-last-used-option-index'] = state.route.path;
  }
  return headers;
}

function isUsageOnly(chunk: ChatCompletionChunk): boolean {
  return chunk.choices.length === 0 && chunk.usage != null;
}

/** How a chunk goes to the client: as it is, or as a `text_completion` event for POST /v1/completions. */
function clientChunk(state: ChatState): (chunk: ChatCompletionChunk) => unknown {
  return state.origin.textCompletion ? toTextChunk : (chunk) => chunk;
}

export async function streamCompletion(state: ChatState, completion: ChatCompletion): Promise<void> {
  const writer = new SseWriter(state.call.res);
  writer.start(servedHeaders(state));
  state.firstByteMs = state.call.services.now() - state.call.startedAt;
  const shape = clientChunk(state);
  for (const chunk of completionToChunks(completion, state.includeUsage)) await writer.data(shape(chunk));
  await writer.data('[DONE]');
  writer.end();
}

export async function streamUpstream(state: ChatState, answer: Extract<UpstreamAnswer, { kind: 'stream' }>, store: ((completion: ChatCompletion, provider: string | null) => Promise<void>) | undefined): Promise<void> {
  const { call } = state;
  const writer = new SseWriter(call.res);
  writer.start(servedHeaders(state));
  // Always assembled: the log keeps the answer of a stream too (and the cache stores it when asked).
  const assembler = new StreamAssembler();
  let usageSent = false;
  const shape = clientChunk(state);
  const emit = async (chunks: ChatCompletionChunk[]) => {
    for (const chunk of chunks) {
      state.firstByteMs ??= call.services.now() - call.startedAt;
      assembler.push(chunk);
      if (isUsageOnly(chunk)) {
        if (!state.includeUsage) continue;
        usageSent = true;
      }
      await writer.data(shape(chunk));
    }
  };
  const { translator, attempt } = answer;
  try {
    for await (const bytes of answer.body) await emit(translator.push(bytes));
    await emit(translator.end());
  } catch (error) {
    state.usage = translator.usage();
    finishWithError(state, writer, attempt, error);
    return;
  }
  attempt.dispose();
  state.usage = translator.usage();
  if (state.includeUsage && !usageSent) {
    const usage = state.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    await writer.data(shape({ id: `chatcmpl-${state.id}`, object: 'chat.completion.chunk', created: Math.floor(call.startedAt / 1000), model: state.model ?? '', choices: [], usage }));
  }
  await writer.data('[DONE]');
  writer.end();
  state.completion = assembler.completion();
  if (state.completion && store) void store(state.completion, state.provider);
}

function finishWithError(state: ChatState, writer: SseWriter, attempt: UpstreamAttempt, error: unknown): void {
  const failure: ApiError = attempt.failure(error);
  state.error = failure;
  state.status = failure.status;
  attempt.abort();
  if (writer.open) {
    // Written directly: the client may be gone, and nothing more follows.
    state.call.res.write(`data: ${JSON.stringify(errorBody(redactedApiError(state.call, failure)))}\n\n`);
  }
  writer.end();
}
