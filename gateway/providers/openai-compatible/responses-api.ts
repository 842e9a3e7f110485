/**
 * OpenAI's own Responses API as the pipeline reads it, for Responses calls forwarded as they came
 * (gateway/chat/responses-wire.ts): a Response object, or its server-sent events, read as a chat
 * completion or chat chunks (the text, function calls and usage), so limits, guardrails, the cache
 * and the log see the answer as they see any other. Hosted tools' items (web search calls, ...)
 * have no chat form: only the client sees them, relayed as they came.
 */
import { UpstreamError } from '../../../core/errors.js';
import { SseDecoder } from '../sse-decoder.js';
import type { ChatCompletion, ChatCompletionChunk, ChatContext, FinishReason, StreamTranslator, Usage } from '../types.js';

type Json = Record<string, unknown>;
type Item = { type?: string; content?: Array<{ type?: string; text?: string; refusal?: string }>; call_id?: string; name?: string; namespace?: string; arguments?: string; input?: string };
type UpstreamResponse = { id?: string; model?: string; status?: string; output?: Item[]; usage?: Json | null; incomplete_details?: { reason?: string } | null; error?: { message?: string } | null };

function usageOf(usage: Json | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  const input = Number(usage.input_tokens ?? 0);
  const output = Number(usage.output_tokens ?? 0);
  const cached = Number((usage.input_tokens_details as Json | undefined)?.cached_tokens ?? 0);
  const reasoning = Number((usage.output_tokens_details as Json | undefined)?.reasoning_tokens ?? 0);
  return { prompt_tokens: input, completion_tokens: output, total_tokens: Number(usage.total_tokens ?? input + output), prompt_tokens_details: { cached_tokens: cached }, completion_tokens_details: { reasoning_tokens: reasoning } };
}

/** The chat name of a call item (a namespace's function as `ns__name`, as gw's chat translation names it). */
function callName(item: Item): string {
  return item.namespace ? `${item.namespace}__${item.name ?? ''}` : (item.name ?? '');
}

function toolCallsOf(output: readonly Item[]) {
  return output
    .filter((item) => item.type === 'function_call' || item.type === 'custom_tool_call')
    .map((item) => ({ id: item.call_id ?? '', type: 'function' as const, function: { name: callName(item), arguments: item.type === 'custom_tool_call' ? JSON.stringify({ input: item.input ?? '' }) : (item.arguments ?? '') } }));
}

function finishReasonOf(response: UpstreamResponse, toolCalls: number): FinishReason {
  if (response.status === 'incomplete') return response.incomplete_details?.reason === 'content_filter' ? 'content_filter' : 'length';
  return toolCalls > 0 ? 'tool_calls' : 'stop';
}

export function chatCompletionOfResponse(response: UpstreamResponse, context: Pick<ChatContext, 'id' | 'created' | 'request'>): ChatCompletion {
  const output = response.output ?? [];
  const parts = output.filter((item) => item.type === 'message').flatMap((item) => item.content ?? []);
  const text = parts.map((part) => part.text ?? '').join('');
  const refusal = parts.map((part) => part.refusal ?? '').join('');
  const toolCalls = toolCallsOf(output);
  const usage = usageOf(response.usage);
  return {
    id: response.id ?? context.id,
    object: 'chat.completion',
    created: context.created,
    model: response.model ?? context.request.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text || null, refusal: refusal || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        logprobs: null,
        finish_reason: finishReasonOf(response, toolCalls.length),
      },
    ],
    ...(usage ? { usage } : {}),
  } as ChatCompletion;
}

/**
 * The upstream's Responses events: each handed to `relay` as it arrives (for the client), and read
 * as chat chunks for the pipeline: text deltas, each finished call, the finish reason and usage at
 * the end. An `error` event, `response.failed`, or a stream that ends without a terminal event is an
 * UpstreamError.
 */
export class ResponsesStreamTranslator implements StreamTranslator {
  private readonly sse = new SseDecoder();
  private seenUsage: Usage | undefined;
  private ended = false;
  private calls = 0;

  constructor(
    private readonly context: Pick<ChatContext, 'id' | 'created' | 'request'>,
    private readonly relay: (event: Json) => void,
  ) {}

  private chunk(delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason | null = null, model = this.context.request.model): ChatCompletionChunk {
    return { id: this.context.id, object: 'chat.completion.chunk', created: this.context.created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] } as ChatCompletionChunk;
  }

  push(bytes: Uint8Array): ChatCompletionChunk[] {
    const chunks: ChatCompletionChunk[] = [];
    for (const { data } of this.sse.push(bytes)) {
      if (data.trim() === '' || data === '[DONE]') continue;
      const event = JSON.parse(data) as Json & { type?: string; response?: UpstreamResponse; item?: Item; delta?: string };
      this.relay(event);
      chunks.push(...this.read(event));
    }
    return chunks;
  }

  private read(event: Json & { type?: string; response?: UpstreamResponse; item?: Item; delta?: string; message?: string }): ChatCompletionChunk[] {
    switch (event.type) {
      case 'response.output_text.delta':
        return [this.chunk({ content: event.delta ?? '' })];
      case 'response.refusal.delta':
        return [this.chunk({ refusal: event.delta ?? '' })];
      case 'response.output_item.done': {
        const [call] = event.item ? toolCallsOf([event.item]) : [];
        if (!call) return [];
        return [this.chunk({ tool_calls: [{ index: this.calls++, ...call }] })];
      }
      case 'response.completed':
      case 'response.incomplete': {
        this.ended = true;
        const response = event.response ?? {};
        this.seenUsage = usageOf(response.usage);
        const last = this.chunk({}, finishReasonOf(response, this.calls), response.model ?? this.context.request.model);
        return this.seenUsage ? [last, { ...this.chunk({}, null, last.model), choices: [], usage: this.seenUsage } as ChatCompletionChunk] : [last];
      }
      case 'response.failed':
        this.ended = true;
        throw new UpstreamError(502, event.response?.error?.message ?? 'The upstream response failed');
      case 'error':
        this.ended = true;
        throw new UpstreamError(502, String(event.message ?? (event.error as Json | undefined)?.message ?? 'The upstream stream failed'));
      default:
        return [];
    }
  }

  end(): ChatCompletionChunk[] {
    const chunks: ChatCompletionChunk[] = [];
    for (const { data } of this.sse.end()) {
      if (data.trim() === '' || data === '[DONE]') continue;
      const event = JSON.parse(data) as Json;
      this.relay(event);
      chunks.push(...this.read(event));
    }
    if (!this.ended) throw new UpstreamError(502, 'The upstream Responses stream ended before the response did');
    return chunks;
  }

  usage(): Usage | undefined {
    return this.seenUsage;
  }
}
