/**
 * The Response object around a chat answer: output items from the assistant message (a reasoning
 * summary when the provider returned its reasoning, the text, the function calls), the status from
 * the finish reason, usage in Responses names, and the request's settings echoed as OpenAI does.
 */
import type { ChatCompletion, FinishReason, Usage } from '../providers/types.js';
import type { ChatMessage } from './chat-request.js';
import { newItemId } from './ids.js';
import type { CreateResponseRequest, OutputItem, ResponseObject } from './wire.js';

/** What a response is about, fixed when it starts (streams send it in `response.created`). */
export interface ResponseFrame {
  id: string;
  createdAt: number;
  request: CreateResponseRequest;
  store: boolean;
}

export function responseUsage(usage: Usage | undefined): NonNullable<ResponseObject['usage']> {
  return {
    input_tokens: usage?.prompt_tokens ?? 0,
    input_tokens_details: { cached_tokens: usage?.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage?.completion_tokens ?? 0,
    output_tokens_details: { reasoning_tokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage?.total_tokens ?? 0,
  };
}

/** The response as `response.created` shows it: in progress, no output yet. */
export function pendingResponse(frame: ResponseFrame, model: string): ResponseObject {
  const { request } = frame;
  return {
    id: frame.id,
    object: 'response',
    created_at: Math.floor(frame.createdAt / 1000),
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    store: frame.store,
    temperature: request.temperature ?? 1,
    top_p: request.top_p ?? 1,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    truncation: request.truncation ?? 'disabled',
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

/** The final status: `length` and `content_filter` end a response incomplete, with the reason. */
export function finishedResponse(pending: ResponseObject, output: OutputItem[], finishReason: FinishReason | null | undefined, usage: Usage | undefined): ResponseObject {
  const reason = finishReason === 'length' ? 'max_output_tokens' : finishReason === 'content_filter' ? 'content_filter' : null;
  return {
    ...pending,
    status: reason ? 'incomplete' : 'completed',
    incomplete_details: reason ? { reason } : null,
    output,
    usage: responseUsage(usage),
  };
}

type AssistantMessage = ChatCompletion['choices'][number]['message'] & { reasoning_content?: string | null };

export function outputItemsOf(message: AssistantMessage, finishReason: FinishReason | null | undefined): OutputItem[] {
  const output: OutputItem[] = [];
  if (message.reasoning_content) output.push({ type: 'reasoning', id: newItemId('rs'), summary: [{ type: 'summary_text', text: message.reasoning_content }], status: 'completed' });
  const toolCalls = message.tool_calls ?? [];
  if (message.refusal) {
    output.push({ type: 'message', id: newItemId('msg'), status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: message.refusal }] });
  } else if (message.content || toolCalls.length === 0) {
    const status = finishReason === 'length' ? 'incomplete' : 'completed';
    output.push({ type: 'message', id: newItemId('msg'), status, role: 'assistant', content: [{ type: 'output_text', text: message.content ?? '', annotations: [] }] });
  }
  for (const call of toolCalls) {
    output.push({ type: 'function_call', id: newItemId('fc'), call_id: call.id, name: call.function.name, arguments: call.function.arguments, status: 'completed' });
  }
  return output;
}

export function responseOf(frame: ResponseFrame, completion: ChatCompletion): ResponseObject {
  const choice = completion.choices[0];
  const output = choice ? outputItemsOf(choice.message, choice.finish_reason) : [];
  return finishedResponse(pendingResponse(frame, completion.model), output, choice?.finish_reason, completion.usage);
}

/** The assistant's turn as a chat message, for the conversation a later response continues. */
export function assistantMessageOf(output: readonly OutputItem[]): ChatMessage | undefined {
  let text = '';
  const toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  for (const item of output) {
    if (item.type === 'message') for (const part of item.content) text += 'text' in part ? part.text : part.refusal;
    if (item.type === 'function_call') toolCalls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
  }
  if (!text && toolCalls.length === 0) return undefined;
  return { role: 'assistant', content: text || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
}
