import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * Counts the requests being answered, so a stop can wait for them: a request answered after the
 * log queue was written would have no log row, and one cut off by the closing upstream pool
 * would fail. Once draining, answers ask the client to close the connection.
 */
export class InFlightRequests {
  private count = 0;
  private draining = false;
  private onIdle: (() => void) | undefined;

  wrap(listener: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      this.count += 1;
      if (this.draining) res.setHeader('connection', 'close');
      res.once('close', () => {
        this.count -= 1;
        if (this.count === 0) this.onIdle?.();
      });
      listener(req, res);
    };
  }

  /** Resolves with how many requests are still in flight: none, or those the deadline cut short. */
  async drain(timeoutMs: number): Promise<number> {
    this.draining = true;
    if (this.count === 0) return 0;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.onIdle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.onIdle = undefined;
    return this.count;
  }
}
