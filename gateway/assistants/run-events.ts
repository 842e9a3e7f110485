/**
 * The Assistants stream events of the runs this process executes, for the streamed requests
 * waiting on them here. A streamed run is executed by the instance holding its client's
 * connection, so the tokens need not cross instances.
 */
export interface RunEvent {
  event: string;
  data: unknown;
}

type Listener = (event: RunEvent) => void;

export class RunEvents {
  private readonly listeners = new Map<string, Set<Listener>>();

  subscribe(runId: string, listener: Listener): () => void {
    const set = this.listeners.get(runId) ?? new Set();
    set.add(listener);
    this.listeners.set(runId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(runId);
    };
  }

  emit(runId: string, event: string, data: unknown): void {
    for (const listener of this.listeners.get(runId) ?? []) listener({ event, data });
  }

  watched(runId: string): boolean {
    return this.listeners.has(runId);
  }
}
