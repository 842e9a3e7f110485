/** A streamed chat completion through gw: the text as it arrives, and the trace id to find its log by. */
import type { Api } from './client';
import { readSse } from './sse';
import type { ChatCompletionChunk } from './types';

export interface ChatTarget {
  /** POST /v1/chat/completions or /v1/prompts/{id}/completions. */
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export async function streamChat(api: Api, target: ChatTarget, traceId: string, onText: (text: string) => void, signal?: AbortSignal): Promise<void> {
  const res = await api.fetch(target.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-gw-trace-id': traceId, ...target.headers },
    body: JSON.stringify({ ...target.body, stream: true }),
    signal,
  });
  if (!res.body) throw new Error('gw answered without a body');
  for await (const data of readSse(res.body)) {
    const chunk = JSON.parse(data) as ChatCompletionChunk & { error?: { message?: string } };
    if (chunk.error) throw new Error(chunk.error.message ?? 'The stream reported an error');
    const text = chunk.choices?.map((choice) => choice.delta?.content ?? '').join('') ?? '';
    if (text) onText(text);
  }
}
