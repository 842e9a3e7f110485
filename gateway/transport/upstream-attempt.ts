/**
 * The life of one upstream call: one abort signal that fires when the timeout passes (waiting
 * for headers and reading the body both count) or when the client goes away. `failure()` turns
 * whatever the call threw into the typed error gw answers with.
 */
import { ApiError, TimeoutError, UpstreamError } from '../../core/errors.js';
import type { ClientGone } from './client-gone.js';

/** The client closed the connection before the answer was complete (nginx's 499). */
export class ClientClosedError extends ApiError {
  constructor() {
    super(499, 'client_closed_request', 'The client closed the connection before the answer was complete', 'invalid_request_error');
  }
}

/**
 * The attempt is its own abort signal. undici takes any object with `on`, `once` and
 * `removeListener` for 'abort' plus `aborted` and `reason` (it attaches one listener per request),
 * so this carries just that: an EventEmitter per upstream call cost more to construct than the
 * rest of the attempt's bookkeeping together (`BENCH_PROFILE=1`).
 */
export class UpstreamAttempt {
  aborted = false;
  reason: Error | undefined = undefined;
  private readonly timer: NodeJS.Timeout;
  private timedOut = false;
  private readonly onClientGone = () => this.cancel();
  private readonly startedAt = performance.now();
  private ended = false;
  /** The abort listeners undici attached (at most one per send; a renewed credential sends twice). */
  private listeners: Array<() => void> | undefined = undefined;

  /** `onEnd` hears, once, how long the attempt lasted from the call to the end of its answer (or its abandonment). */
  constructor(
    private readonly timeoutMs: number,
    private readonly clientGone: ClientGone,
    private readonly onEnd?: (durationMs: number) => void,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.cancel();
    }, Math.max(0, timeoutMs));
    clientGone.onAbort(this.onClientGone);
  }

  /** The emitter methods undici calls, for the one event a signal has; each listener hears it once. */
  on(event: string, listener: () => void): this {
    if (event === 'abort') (this.listeners ??= []).push(listener);
    return this;
  }

  once(event: string, listener: () => void): this {
    return this.on(event, listener);
  }

  addListener(event: string, listener: () => void): this {
    return this.on(event, listener);
  }

  removeListener(event: string, listener: () => void): this {
    const index = event === 'abort' ? (this.listeners?.indexOf(listener) ?? -1) : -1;
    if (index >= 0) this.listeners!.splice(index, 1);
    return this;
  }

  off(event: string, listener: () => void): this {
    return this.removeListener(event, listener);
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
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) listener();
  }

  failure(error: unknown): ApiError {
    if (this.timedOut) return new TimeoutError(`The upstream did not answer within ${this.timeoutMs} ms`);
    if (this.clientGone.aborted) return new ClientClosedError();
    if (error instanceof ApiError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new UpstreamError(502, `Could not reach the upstream: ${message}`, 'upstream_unreachable', { cause: error });
  }
}
