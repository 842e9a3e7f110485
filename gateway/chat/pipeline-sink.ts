/**
 * Where a door's streamed call (Responses, Messages) has the chat pipeline write: the chat pipeline's chunk sink (it reads the
 * pipeline's own server-sent events back into chunks), which here also keeps the headers the
 * pipeline set and reports the moment the pipeline opened its stream, so the door's stream
 * opens to the client then with the same headers.
 */
import { ChunkSink } from './chunk-sink.js';
import type { ChatCompletionChunk } from '../providers/types.js';

export class PipelineSink extends ChunkSink {
  readonly headers: Record<string, string> = {};
  /** Set when the pipeline opened its stream: resolves once the client's stream has opened. */
  opened: Promise<void> | undefined;

  constructor(
    onChunk: (chunk: ChatCompletionChunk) => Promise<void>,
    private readonly onOpen: (headers: Record<string, string>) => Promise<void>,
  ) {
    super(onChunk);
  }

  override setHeader(name?: string, value?: unknown): this {
    if (typeof name === 'string') this.headers[name.toLowerCase()] = String(value);
    return this;
  }

  override flushHeaders(): void {
    super.flushHeaders();
    this.opened ??= this.onOpen(this.headers);
  }
}
