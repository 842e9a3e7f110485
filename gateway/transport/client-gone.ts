/**
 * Fires once when the client of a request goes away before its answer is complete. A plain
 * callback list rather than an AbortController: one of those (an EventTarget) per request, plus a
 * listener per upstream attempt, cost more than any other single step of a small chat call.
 */
export class ClientGone {
  aborted = false;
  private listeners: Array<() => void> | undefined;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) listener();
  }

  onAbort(listener: () => void): void {
    if (this.aborted) listener();
    else (this.listeners ??= []).push(listener);
  }

  offAbort(listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.listeners!.splice(index, 1);
  }
}
