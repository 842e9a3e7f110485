/**
 * Answers a streamed request from a cached completion: the chunks a provider would have sent
 * (role, content, tool calls, finish reason, then usage when `stream_options.include_usage`),
 * to be written as server-sent events and closed with `data: [DONE]`.
 */
import type { ChatCompletion, ChatCompletionChunk } from '../providers/types.js';

export function completionToChunks(completion: ChatCompletion, includeUsage: boolean): ChatCompletionChunk[] {
  const base = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
  const withFingerprint = completion.system_fingerprint !== undefined ? { system_fingerprint: completion.system_fingerprint } : {};
  const chunks: ChatCompletionChunk[] = [];
  for (const choice of completion.choices) {
    const message = choice.message;
    chunks.push({ ...base, ...withFingerprint, choices: [{ index: choice.index, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    if (message.reasoning_content) {
      chunks.push({ ...base, ...withFingerprint, choices: [{ index: choice.index, delta: { reasoning_content: message.reasoning_content }, finish_reason: null }] });
    }
    if (message.content) chunks.push({ ...base, ...withFingerprint, choices: [{ index: choice.index, delta: { content: message.content }, finish_reason: null }] });
    if (message.refusal) chunks.push({ ...base, ...withFingerprint, choices: [{ index: choice.index, delta: { refusal: message.refusal }, finish_reason: null }] });
    if (message.tool_calls?.length) {
      const toolCalls = message.tool_calls.map((call, index) => ({ index, id: call.id, type: call.type, function: { ...call.function } }));
      chunks.push({ ...base, ...withFingerprint, choices: [{ index: choice.index, delta: { tool_calls: toolCalls }, finish_reason: null }] });
    }
    chunks.push({ ...base, ...withFingerprint, choices: [{ index: choice.index, delta: {}, finish_reason: choice.finish_reason }] });
  }
  if (includeUsage && completion.usage) chunks.push({ ...base, ...withFingerprint, choices: [], usage: completion.usage });
  return chunks;
}

/** The SSE body of a replay, ending with the [DONE] sentinel. */
export function chunksToSse(chunks: ChatCompletionChunk[]): string {
  return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n';
}
