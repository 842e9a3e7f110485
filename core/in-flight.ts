import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * Counts the requests being answered, so a stop can wait for them: a request answered after the
 * log queue was written would have no log row, and one cut off by the closing upstream pool
 * would fail. Once a stop began, answers ask the client to close the connection, so keep-alive
 * clients reconnect (to another instance) instead of holding on to this one.
 */
export class InFlightRequests {
  private count = 0;
  private closing = false;
  private onIdle: (() => void) | undefined;

  wrap(listener: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      this.count += 1;
      if (this.closing) res.setHeader('connection', 'close');
      res.once('close', () => {
        this.count -= 1;
        if (this.count === 0) this.onIdle?.();
      });
      listener(req, res);
    };
  }

  /** From now on every answer carries `Connection: close`. */
  endKeepAlive(): void {
    this.closing = true;
  }

  /** Resolves with how many requests are still in flight: none, or those the deadline cut short. */
  async drain(timeoutMs: number): Promise<number> {
    this.endKeepAlive();
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
