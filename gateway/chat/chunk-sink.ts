/**
 * Where a caller inside gw (an assistant run's turn, a streamed Responses call) has the chat
 * pipeline write its answer: in place of a client's connection, a sink that reads the pipeline's
 * own server-sent events back into chunks as they arrive. So the caller runs the chat stages
 * unchanged (streamed from every provider, cache replays and mock answers included) and gets
 * tokens as they come.
 */
import { Writable } from 'node:stream';
import type { ChatCompletionChunk } from '../providers/types.js';

export interface StreamedError {
  code?: string;
  message?: string;
  type?: string;
}

export class ChunkSink extends Writable {
  headersSent = false;
  statusCode = 200;
  /** The error event a stream that failed midway ended with. */
  streamError: StreamedError | undefined;
  private pending = '';

  constructor(private readonly onChunk: (chunk: ChatCompletionChunk) => Promise<void> | void) {
    super();
  }

  /** Set when the caller stopped listening (a run cancelled or handed back mid-turn): the pipeline sees its client go away and aborts the upstream call. */
  stopped = false;
  private readonly stopper = new AbortController();
  /** Aborts at stop(): work the turn does after the model call (a code_interpreter call) stops with it. */
  readonly stopSignal = this.stopper.signal;

  stop(): void {
    this.stopped = true;
    this.stopper.abort();
    this.destroy();
  }

  /** Resolves once every chunk written has been handled (or the sink was destroyed). */
  settled(): Promise<void> {
    if (this.writableFinished || this.destroyed) return Promise.resolve();
    // (Writable destroys itself after finishing, so `destroyed` alone does not mean stopped.)
    return new Promise((resolve) => {
      this.once('finish', resolve);
      this.once('close', resolve);
    });
  }

  setHeader(): this {
    return this;
  }

  getHeader(): undefined {
    return undefined;
  }

  writeHead(status: number): this {
    this.statusCode = status;
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    this.headersSent = true;
  }

  override _write(data: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.pending += typeof data === 'string' ? data : data.toString('utf8');
    // The chunk handler may write to the store: the pipeline's next write waits for it (backpressure).
    this.drain().then(() => done(), done);
  }

  private async drain(): Promise<void> {
    let end: number;
    while ((end = this.pending.indexOf('\n\n')) >= 0) {
      const event = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 2);
      if (!event.startsWith('data: ')) continue;
      const payload = event.slice(6);
      if (payload === '[DONE]') continue;
      const parsed = JSON.parse(payload) as ChatCompletionChunk & { error?: StreamedError };
      if (parsed.error) this.streamError = parsed.error;
      else await this.onChunk(parsed);
    }
  }
}
