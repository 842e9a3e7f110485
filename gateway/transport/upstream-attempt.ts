/**
 * The life of one upstream call: one abort signal that fires when the timeout passes (waiting
 * for headers and reading the body both count) or when the client goes away. `failure()` turns
 * whatever the call threw into the typed error gw answers with.
 */
import { EventEmitter } from 'node:events';
import { ApiError, TimeoutError, UpstreamError } from '../../server/errors.js';
import type { ClientGone } from './client-gone.js';

/** The client closed the connection before the answer was complete (nginx's 499). */
export class ClientClosedError extends ApiError {
  constructor() {
    super(499, 'client_closed_request', 'The client closed the connection before the answer was complete', 'invalid_request_error');
  }
}

/**
 * The attempt is its own abort signal: undici takes an EventEmitter with `aborted` and `reason`
 * as readily as an AbortSignal, and an emitter is far cheaper to make for every upstream call.
 */
export class UpstreamAttempt extends EventEmitter {
  aborted = false;
  reason: Error | undefined;
  private readonly timer: NodeJS.Timeout;
  private timedOut = false;
  private readonly onClientGone = () => this.cancel();
  private readonly startedAt = performance.now();
  private ended = false;

  /** `onEnd` hears, once, how long the attempt lasted from the call to the end of its answer (or its abandonment). */
  constructor(
    private readonly timeoutMs: number,
    private readonly clientGone: ClientGone,
    private readonly onEnd?: (durationMs: number) => void,
  ) {
    super();
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.cancel();
    }, Math.max(0, timeoutMs));
    clientGone.onAbort(this.onClientGone);
  }

  /** What undici's `signal` option takes. */
  get signal(): UpstreamAttempt {
    return this;
  }

  /** Stops the timer and unhooks from the client; call once the answer is read (or abandoned). */
  dispose(): void {
    clearTimeout(this.timer);
    this.clientGone.offAbort(this.onClientGone);
    if (this.ended) return;
    this.ended = true;
    this.onEnd?.(performance.now() - this.startedAt);
  }

  /** Aborts the upstream call (the answer is no longer wanted). */
  abort(): void {
    this.cancel();
    this.dispose();
  }

  private cancel(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new Error('The upstream call was cancelled');
    this.reason.name = 'AbortError';
    this.emit('abort');
  }

  failure(error: unknown): ApiError {
    if (this.timedOut) return new TimeoutError(`The upstream did not answer within ${this.timeoutMs} ms`);
    if (this.clientGone.aborted) return new ClientClosedError();
    if (error instanceof ApiError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new UpstreamError(502, `Could not reach the upstream: ${message}`, 'upstream_unreachable', { cause: error });
  }
}
