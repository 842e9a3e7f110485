/**
 * A chat completion through gw, streamed or not: the assistant's answer as it grows (text and
 * tool calls, whose streamed pieces are joined by index), and the trace id to find its log by.
 */
import type { Api } from './client';
import { readSse } from './sse';
import type { ChatCompletion, ChatCompletionChunk, ToolCall } from './types';

export interface ChatTarget {
  /** POST /v1/chat/completions or /v1/prompts/{id}/completions. */
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** The assistant's answer so far. */
export interface AssistantAnswer {
  content: string;
  tool_calls: ToolCall[];
  finish_reason: string | null;
}

export async function runChat(api: Api, target: ChatTarget, traceId: string, stream: boolean, onAnswer: (answer: AssistantAnswer) => void, signal?: AbortSignal): Promise<AssistantAnswer> {
  const res = await api.fetch(target.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json', 'x-gw-trace-id': traceId, ...target.headers },
    body: JSON.stringify({ ...target.body, stream }),
    signal,
  });
  if (!stream) {
    const completion = (await res.json()) as ChatCompletion;
    const choice = completion.choices[0];
    const answer = { content: choice?.message.content ?? '', tool_calls: choice?.message.tool_calls ?? [], finish_reason: choice?.finish_reason ?? null };
    onAnswer(answer);
    return answer;
  }
  if (!res.body) throw new Error('gw answered without a body');
  let answer: AssistantAnswer = { content: '', tool_calls: [], finish_reason: null };
  for await (const data of readSse(res.body)) {
    const chunk = JSON.parse(data) as ChatCompletionChunk & { error?: { message?: string } };
    if (chunk.error) throw new Error(chunk.error.message ?? 'The stream reported an error');
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    answer = joinDelta(answer, choice.delta, choice.finish_reason ?? null);
    onAnswer(answer);
  }
  return answer;
}

type Delta = ChatCompletionChunk['choices'][number]['delta'];

/** The answer with one streamed delta added: text appended, each tool call's pieces joined at its index. */
export function joinDelta(answer: AssistantAnswer, delta: Delta, finish: string | null): AssistantAnswer {
  const tool_calls = [...answer.tool_calls];
  for (const piece of delta.tool_calls ?? []) {
    const old = tool_calls[piece.index] ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
    tool_calls[piece.index] = {
      id: piece.id ?? old.id,
      type: 'function',
      function: { name: old.function.name + (piece.function?.name ?? ''), arguments: old.function.arguments + (piece.function?.arguments ?? '') },
    };
  }
  return { content: answer.content + (delta.content ?? ''), tool_calls, finish_reason: finish ?? answer.finish_reason };
}
