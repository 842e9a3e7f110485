/**
 * What a worker and the primary say to each other over the cluster's IPC channel (GW_WORKERS > 1).
 * Every message carries `gw` so the channel can be shared with prom-client's aggregator.
 */

/** A call a worker makes to state the primary owns: counters, cache, the SQLite log writer, metrics. */
export interface CallMessage {
  gw: 'call';
  id: number;
  op: string;
  args: unknown[];
}

export interface ReplyMessage {
  gw: 'reply';
  id: number;
  value?: unknown;
  error?: string;
}

/** An invalidation published by one worker, relayed by the primary to every other worker. */
export interface BusMessage {
  gw: 'bus';
  topic: string;
  id: string;
}

export type ClusterMessage = CallMessage | ReplyMessage | BusMessage;

export function isClusterMessage(message: unknown): message is ClusterMessage {
  return typeof message === 'object' && message !== null && typeof (message as { gw?: unknown }).gw === 'string';
}
