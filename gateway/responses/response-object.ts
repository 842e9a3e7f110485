/**
 * The Response object around a chat answer: output items from the assistant message (a reasoning
 * summary when the provider returned its reasoning, the text, the function and custom tool calls),
 * the status from the finish reason, usage in Responses names, and the request's settings echoed
 * with every key OpenAI's schema and the Open Responses specification require.
 */
import type { ChatCompletion, FinishReason, Usage } from '../providers/types.js';
import type { ChatMessage } from './chat-request.js';
import { newItemId } from './ids.js';
import { callItemOf, chatCallOf, echoedTools, type ChatToolCall, type ToolPlan } from './tools.js';
import type { CreateResponseRequest, OutputItem, ResponseObject } from './wire.js';

/** What a response is about, fixed when it starts (streams send it in `response.created`). */
export interface ResponseFrame {
  id: string;
  createdAt: number;
  request: CreateResponseRequest;
  store: boolean;
  tools: ToolPlan;
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
    completed_at: null,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    max_tool_calls: request.max_tool_calls ?? null,
    model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    store: frame.store,
    background: false,
    // gw asks no provider for a tier: what the call ran on is the provider's default.
    service_tier: 'default',
    temperature: request.temperature ?? 1,
    top_p: request.top_p ?? 1,
    presence_penalty: request.presence_penalty ?? 0,
    frequency_penalty: request.frequency_penalty ?? 0,
    top_logprobs: request.top_logprobs ?? 0,
    text: { format: request.text?.format ?? { type: 'text' }, ...(request.text?.verbosity ? { verbosity: request.text.verbosity } : {}) },
    tool_choice: request.tool_choice ?? 'auto',
    tools: echoedTools(request.tools),
    truncation: request.truncation ?? 'disabled',
    usage: null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
    safety_identifier: request.safety_identifier ?? null,
    prompt_cache_key: request.prompt_cache_key ?? null,
  };
}

/** The final status: `length` and `content_filter` end a response incomplete, with the reason. */
/** `now`: epoch ms when the answer ended (completed_at). */
export function finishedResponse(pending: ResponseObject, output: OutputItem[], finishReason: FinishReason | null | undefined, usage: Usage | undefined, now: number): ResponseObject {
  const reason = finishReason === 'length' ? 'max_output_tokens' : finishReason === 'content_filter' ? 'content_filter' : null;
  return {
    ...pending,
    status: reason ? 'incomplete' : 'completed',
    completed_at: reason ? null : Math.floor(now / 1000),
    incomplete_details: reason ? { reason } : null,
    output,
    usage: responseUsage(usage),
  };
}

type AssistantMessage = ChatCompletion['choices'][number]['message'] & { reasoning_content?: string | null };

export function outputItemsOf(message: AssistantMessage, finishReason: FinishReason | null | undefined, tools?: ToolPlan): OutputItem[] {
  const output: OutputItem[] = [];
  if (message.reasoning_content) output.push({ type: 'reasoning', id: newItemId('rs'), summary: [{ type: 'summary_text', text: message.reasoning_content }], status: 'completed' });
  const toolCalls = message.tool_calls ?? [];
  if (message.refusal) {
    output.push({ type: 'message', id: newItemId('msg'), status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: message.refusal }] });
  } else if (message.content || toolCalls.length === 0) {
    const status = finishReason === 'length' ? 'incomplete' : 'completed';
    output.push({ type: 'message', id: newItemId('msg'), status, role: 'assistant', content: [{ type: 'output_text', text: message.content ?? '', annotations: [] }] });
  }
  for (const call of toolCalls) output.push(callItemOf(call as ChatToolCall, tools));
  return output;
}

export function responseOf(frame: ResponseFrame, completion: ChatCompletion, now: number): ResponseObject {
  const choice = completion.choices[0];
  const output = choice ? outputItemsOf(choice.message, choice.finish_reason, frame.tools) : [];
  return finishedResponse(pendingResponse(frame, completion.model), output, choice?.finish_reason, completion.usage, now);
}

/** The assistant's turn as a chat message, for the conversation a later response continues. */
export function assistantMessageOf(output: readonly OutputItem[]): ChatMessage | undefined {
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  for (const item of output) {
    if (item.type === 'message') for (const part of item.content) text += 'text' in part ? part.text : part.refusal;
    if (item.type === 'function_call' || item.type === 'custom_tool_call') toolCalls.push(chatCallOf(item));
  }
  if (!text && toolCalls.length === 0) return undefined;
  return { role: 'assistant', content: text || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
}
