/**
 * Gemini streamGenerateContent?alt=sse -> OpenAI chat.completion.chunk objects. Every event is a
 * whole GenerateContentResponse holding the next piece of each candidate: text parts -> content,
 * `thought` parts -> reasoning_content (strict off only), functionCall parts -> complete tool calls
 * (Gemini sends a call in one piece), finishReason -> finish_reason, usageMetadata -> usage (the last
 * one is the total; a usage chunk closes the stream when stream_options.include_usage). An error
 * (a bare JSON object or an event carrying `error`) becomes an UpstreamError: chunks decoded before it are still returned, and the
 * error is thrown by the next push or end. A stream where no candidate finished was cut short.
 */
import { UpstreamError } from '../../../core/errors.js';
import type { ChatCompletionChunk, ChatContext, StreamTranslator, Usage } from '../types.js';
import { sortParts } from './candidate.js';
import { googleErrorOf, streamErrorOf } from './errors.js';
import { GeminiStreamFrames } from './stream-frames.js';
import { finishReasonOf } from './finish-reason.js';
import { usageOf } from './usage.js';
import type { GeminiCandidate, GeminiResponse } from './wire.js';

type Choice = ChatCompletionChunk['choices'][number];

interface ChoiceState {
  calls: number;
}

export class GeminiStreamTranslator implements StreamTranslator {
  private readonly frames = new GeminiStreamFrames();
  private readonly choices = new Map<number, ChoiceState>();
  private failure: UpstreamError | undefined;
  private finished = false;
  private blocked = false;
  private seenUsage: Usage | undefined;
  private id: string | undefined;
  private model: string;

  constructor(private readonly context: ChatContext) {
    this.model = context.request.model;
  }

  push(bytes: Uint8Array): ChatCompletionChunk[] {
    if (this.failure) throw this.failure;
    return this.translateAll(this.frames.push(bytes));
  }

  end(): ChatCompletionChunk[] {
    if (this.failure) throw this.failure;
    const chunks = this.translateAll(this.frames.end());
    if (this.failure) throw this.failure;
    if (!this.finished && this.blocked) chunks.push(this.chunk([{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: 'content_filter' }]));
    else if (!this.finished) throw new UpstreamError(502, 'gemini stream ended before any candidate finished', 'upstream_stream_incomplete');
    if (this.context.request.stream_options?.include_usage) chunks.push({ ...this.chunk([]), usage: this.usage() ?? usageOf(undefined) });
    return chunks;
  }

  usage(): Usage | undefined {
    return this.seenUsage;
  }

  private translateAll(payloads: string[]): ChatCompletionChunk[] {
    const chunks: ChatCompletionChunk[] = [];
    for (const payload of payloads) {
      if (this.failure) break;
      this.translate(parseEvent(payload), chunks);
    }
    if (this.failure && chunks.length === 0) throw this.failure;
    return chunks;
  }

  private translate(event: GeminiResponse & { error?: unknown }, chunks: ChatCompletionChunk[]): void {
    const error = googleErrorOf(event);
    if (error) {
      this.failure = streamErrorOf(error);
      return;
    }
    this.id ??= event.responseId ?? this.context.id;
    this.model = event.modelVersion ?? this.model;
    if (event.usageMetadata) this.seenUsage = usageOf(event.usageMetadata);
    if (event.promptFeedback?.blockReason) this.blocked = true;
    (event.candidates ?? []).forEach((candidate, position) => this.translateCandidate(candidate, candidate.index ?? position, chunks));
  }

  private translateCandidate(candidate: GeminiCandidate, index: number, chunks: ChatCompletionChunk[]): void {
    const first = !this.choices.has(index);
    const state = this.choices.get(index) ?? { calls: 0 };
    this.choices.set(index, state);
    const parts = sortParts(candidate.content?.parts, this.id!, index, state.calls);
    const delta: Choice['delta'] = first ? { role: 'assistant' } : {};
    if (parts.text.length > 0) delta.content = parts.text.join('');
    else if (first) delta.content = '';
    if (parts.reasoning.length > 0 && this.context.target.strictOpenAiCompliance === false) delta.reasoning_content = parts.reasoning.join('');
    if (parts.toolCalls.length > 0) delta.tool_calls = parts.toolCalls.map((call, k) => ({ index: state.calls + k, ...call }));
    state.calls += parts.toolCalls.length;
    if (Object.keys(delta).length > 0) chunks.push(this.chunk([{ index, delta, finish_reason: null }]));
    if (candidate.finishReason) {
      this.finished = true;
      chunks.push(this.chunk([{ index, delta: {}, finish_reason: finishReasonOf(candidate.finishReason, state.calls > 0) }]));
    }
  }

  private chunk(choices: Choice[]): ChatCompletionChunk {
    return { id: this.id ?? this.context.id, object: 'chat.completion.chunk', created: this.context.created, model: this.model, choices };
  }
}

function parseEvent(data: string): GeminiResponse & { error?: unknown } {
  try {
    return JSON.parse(data) as GeminiResponse;
  } catch {
    throw new UpstreamError(502, 'gemini sent a stream event that is not JSON', 'upstream_malformed_stream');
  }
}
