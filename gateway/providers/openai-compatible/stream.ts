/**
 * Translator for OpenAI-framed streams (`data: <chunk>` events ending with `data: [DONE]`), as
 * OpenAI, Azure OpenAI and the compatible hosts send them. An `error` event or a stream that stops
 * before `[DONE]` is an UpstreamError, so the gateway can end its own stream with an error event.
 */
import { UpstreamError } from '../../../core/errors.js';
import { SseDecoder } from '../sse-decoder.js';
import type { ChatCompletionChunk, ChatContext, StreamTranslator, Usage } from '../types.js';
import { normalizeChunk } from './normalize.js';

export class OpenAiStreamTranslator implements StreamTranslator {
  private readonly sse = new SseDecoder();
  private done = false;
  private seenUsage: Usage | undefined;
  /** An error met after chunks in the same read: those chunks go out first, the error on the next call. */
  private pendingError: UpstreamError | undefined;
  private readonly fallback: { id: string; created: number; model: string };
  private readonly strict: boolean;

  /** `reshape` turns another OpenAI-framed event (a legacy text_completion chunk) into a chat chunk first. */
  constructor(
    context: Pick<ChatContext, 'id' | 'created' | 'target'> & { request: { model: string } },
    private readonly reshape: (event: Record<string, unknown>) => Record<string, unknown> = (event) => event,
  ) {
    this.fallback = { id: context.id, created: context.created, model: context.request.model };
    this.strict = context.target.strictOpenAiCompliance !== false;
  }

  push(bytes: Uint8Array): ChatCompletionChunk[] {
    if (this.pendingError) throw this.pendingError;
    return this.translate(this.sse.push(bytes));
  }

  end(): ChatCompletionChunk[] {
    if (this.pendingError) throw this.pendingError;
    const chunks = this.translate(this.sse.end());
    if (this.pendingError) throw this.pendingError;
    if (!this.done) throw new UpstreamError(502, 'The upstream stream ended before [DONE]', 'upstream_stream_incomplete');
    return chunks;
  }

  usage(): Usage | undefined {
    return this.seenUsage;
  }

  private translate(events: Array<{ data: string }>): ChatCompletionChunk[] {
    const chunks: ChatCompletionChunk[] = [];
    for (const { data } of events) {
      if (this.done) continue;
      if (data === '[DONE]') {
        this.done = true;
        continue;
      }
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(data) as Record<string, unknown>;
      } catch {
        const failure = new UpstreamError(502, 'The upstream sent a malformed stream event', 'upstream_malformed_stream');
        if (chunks.length === 0) throw failure;
        this.pendingError = failure;
        break;
      }
      if (parsed.error !== undefined) {
        const error = parsed.error as { message?: unknown; code?: unknown };
        const message = typeof error?.message === 'string' ? error.message : 'The upstream reported an error mid-stream';
        const failure = new UpstreamError(502, message, typeof error?.code === 'string' ? error.code : 'upstream_stream_error');
        if (chunks.length === 0) throw failure;
        this.pendingError = failure;
        break;
      }
      // Azure's prompt-filter preamble and similar carry neither choices nor usage: not an OpenAI chunk.
      if ((!Array.isArray(parsed.choices) || parsed.choices.length === 0) && parsed.usage == null) continue;
      const chunk = normalizeChunk(this.reshape(parsed), this.fallback, this.strict);
      if (chunk.usage) this.seenUsage = chunk.usage;
      chunks.push(chunk);
    }
    return chunks;
  }
}
