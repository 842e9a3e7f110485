/**
 * Where a Responses call made on a WebSocket has the door write its answer: in place of an HTTP
 * response, a sink that turns each server-sent event the door writes into one JSON text message
 * on the socket (in order, each waiting for the one before it to be sent). A JSON body (an error
 * answered before the stream opened) becomes the socket's `error` event.
 */
import { Writable } from 'node:stream';
import { WebSocket } from 'ws';

/** The Open Responses `WebSocketErrorEvent`: an error outside a response's own event stream. */
export interface SocketErrorEvent {
  type: 'error';
  status: number;
  error: { type: string; code: string; message: string; param: string | null };
  hook_results?: unknown;
}

export class SocketResponse extends Writable {
  headersSent = false;
  statusCode = 200;
  /** Set when the stream told of a failure (`response.failed`, `error`). */
  failed = false;
  private readonly headers = new Map<string, unknown>();
  private pending = '';

  constructor(private readonly ws: WebSocket) {
    super();
  }

  setHeader(name: string, value: unknown): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }

  getHeader(name: string): unknown {
    return this.headers.get(name.toLowerCase());
  }

  hasHeader(name: string): boolean {
    return this.headers.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }

  writeHead(status: number): this {
    this.statusCode = status;
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    this.headersSent = true;
  }

  /** Resolves once everything written has been sent (or the socket went away). */
  done(): Promise<void> {
    if (this.writableFinished || this.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.once('finish', resolve);
      this.once('close', resolve);
    });
  }

  override _write(data: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.pending += typeof data === 'string' ? data : data.toString('utf8');
    const sends: Promise<void>[] = [];
    let end: number;
    while ((end = this.pending.indexOf('\n\n')) >= 0) {
      const block = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (!data) continue;
      const payload = data.slice(6);
      // gw's own events start with their type; a relayed upstream event is read when it may be a failure.
      let type = /^\{"type":"([^"]+)"/.exec(payload)?.[1];
      if (!type && /"error"|response\.failed/.test(payload)) type = (JSON.parse(payload) as { type?: string }).type;
      if (type === 'error' || type === 'response.failed') this.failed = true;
      sends.push(this.send(payload));
    }
    Promise.all(sends).then(() => done(), done);
  }

  override _final(done: (error?: Error | null) => void): void {
    const body = this.pending.trim();
    this.pending = '';
    if (!body) return done();
    let parsed: { error?: { type?: string; code?: string; message?: string; param?: string | null }; hook_results?: unknown };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      parsed = {};
    }
    if (this.statusCode < 400 && !parsed.error) return void this.send(body).then(() => done(), done);
    this.failed = true;
    const error = parsed.error ?? {};
    const event: SocketErrorEvent = {
      type: 'error',
      status: this.statusCode,
      error: { type: error.type ?? 'api_error', code: error.code ?? 'server_error', message: error.message ?? 'The request failed', param: error.param ?? null },
    };
    if (parsed.hook_results) event.hook_results = parsed.hook_results;
    this.send(JSON.stringify(event)).then(() => done(), done);
  }

  private send(text: string): Promise<void> {
    if (this.ws.readyState !== WebSocket.OPEN) return Promise.resolve();
    // Resolves even when the send fails: the socket's close ends the call.
    return new Promise((resolve) => this.ws.send(text, () => resolve()));
  }
}
