/**
 * Writes server-sent events to the client as they come, respecting backpressure, and never
 * writing to a connection that has gone away.
 */
import type { ServerResponse } from 'node:http';

export class SseWriter {
  constructor(private readonly res: ServerResponse) {}

  get open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  start(headers: Record<string, string>): void {
    for (const [name, value] of Object.entries(headers)) this.res.setHeader(name, value);
    this.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    // Sends the headers now, so the client sees the stream open before the first token.
    this.res.flushHeaders();
  }

  async data(payload: unknown): Promise<void> {
    await this.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
  }

  /** A named event (`event: <name>`), as the Responses API frames its stream. */
  async event(name: string, payload: unknown): Promise<void> {
    await this.write(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
  }

  end(): void {
    if (this.open) this.res.end();
  }

  private async write(text: string): Promise<void> {
    if (!this.open) return;
    if (this.res.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }
}
