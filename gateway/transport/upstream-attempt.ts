/**
 * The life of one upstream call: one AbortController that fires when the timeout passes (waiting
 * for headers and reading the body both count) or when the client goes away. `failure()` turns
 * whatever the call threw into the typed error gw answers with.
 */
import { ApiError, TimeoutError, UpstreamError } from '../../server/errors.js';

/** The client closed the connection before the answer was complete (nginx's 499). */
export class ClientClosedError extends ApiError {
  constructor() {
    super(499, 'client_closed_request', 'The client closed the connection before the answer was complete', 'invalid_request_error');
  }
}

export class UpstreamAttempt {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private timedOut = false;
  private readonly onClientGone: () => void;

  constructor(
    private readonly timeoutMs: number,
    private readonly clientGone: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, Math.max(0, timeoutMs));
    this.onClientGone = () => this.controller.abort();
    if (clientGone.aborted) this.controller.abort();
    else clientGone.addEventListener('abort', this.onClientGone, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the timer and unhooks from the client; call once the answer is read (or abandoned). */
  dispose(): void {
    clearTimeout(this.timer);
    this.clientGone.removeEventListener('abort', this.onClientGone);
  }

  /** Aborts the upstream call (the answer is no longer wanted). */
  abort(): void {
    this.controller.abort();
    this.dispose();
  }

  failure(error: unknown): ApiError {
    if (this.timedOut) return new TimeoutError(`The upstream did not answer within ${this.timeoutMs} ms`);
    if (this.clientGone.aborted) return new ClientClosedError();
    if (error instanceof ApiError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new UpstreamError(502, `Could not reach the upstream: ${message}`, 'upstream_unreachable', { cause: error });
  }
}
