/**
 * A data plane's limit counters: every reserve, settle and read goes to the control plane's own
 * counters (POST /v1/deployments/counters with the deployment key), so an organisation's budgets
 * and rate limits hold across every plane exactly as across instances on one Redis.
 *
 * When the control plane cannot be reached (or refuses), the store fails closed: it throws
 * CounterStoreUnavailable, which the limits engine turns into a 503 (or lets through when
 * GW_LIMITS_FAIL_OPEN is set). With an offline allowance (GW_DATA_PLANE_OFFLINE_ALLOWANCE_PERCENT)
 * each counter may instead grow on this plane alone, in its memory, up to that share of its limit
 * per window; past it, the store fails closed again. What was admitted offline is not reported to
 * the control plane later: the allowance is the bound on what one plane can add during an outage.
 */
import type { Logger } from '../../core/logger.js';
import type { CounterStore, ReserveResult } from '../limits/counter-store.js';
import { MemoryCounterStore } from '../limits/memory-counter-store.js';
import { CounterStoreUnavailable } from '../limits/redis-counter-store.js';

/** A limit check waits at most this long for the control plane before it counts as unreachable. */
const TIMEOUT_MS = 3_000;
/** After a failure, calls go straight to the offline path for this long instead of each waiting on a dead peer. */
const RETRY_AFTER_MS = 1_000;
/** Keys with offline reservations awaiting their settle, at most (memory stays bounded through a long outage). */
const MAX_PENDING_KEYS = 10_000;

export interface ControlPlaneCountersOptions {
  controlPlaneUrl: string;
  deploymentKey: string;
  /** Share (0-100) of each limit this plane may admit alone while the control plane is unreachable; 0 fails closed. */
  offlineAllowancePercent: number;
  logger: Logger;
  now: () => number;
}

export class ControlPlaneCounters implements CounterStore {
  private readonly url: string;
  private readonly offline: MemoryCounterStore;
  /** Reservations made offline and not settled yet, per key: their settles stay offline too. */
  private readonly offlinePending = new Map<string, number>();
  private downUntil = 0;

  constructor(private readonly options: ControlPlaneCountersOptions) {
    this.url = `${options.controlPlaneUrl.replace(/\/+$/, '')}/v1/deployments/counters`;
    this.offline = new MemoryCounterStore(options.now);
  }

  async reserve(key: string, amount: number, limit: number, ttlMs: number, index?: { key: string; member: string }): Promise<ReserveResult> {
    try {
      const answer = await this.send({ op: 'reserve', key, amount, limit, ttl_ms: Math.max(1, Math.ceil(ttlMs)), ...(index ? { index } : {}) });
      return { allowed: answer.allowed === true, used: Number(answer.used ?? 0) };
    } catch (error) {
      const allowance = Math.floor((limit * this.options.offlineAllowancePercent) / 100);
      if (allowance <= 0) throw error;
      const local = await this.offline.reserve(key, amount, allowance, ttlMs, index);
      if (!local.allowed) throw new CounterStoreUnavailable(`control plane unreachable and this counter's offline allowance (${allowance}) is spent`);
      this.offlinePending.set(key, (this.offlinePending.get(key) ?? 0) + 1);
      // Some reservations are never settled (the unpriced-request tally): the oldest entries go past a bound.
      if (this.offlinePending.size > MAX_PENDING_KEYS) this.offlinePending.delete(this.offlinePending.keys().next().value!);
      return local;
    }
  }

  async settle(key: string, delta: number): Promise<void> {
    const pending = this.offlinePending.get(key) ?? 0;
    if (pending > 0) {
      if (pending === 1) this.offlinePending.delete(key);
      else this.offlinePending.set(key, pending - 1);
      return this.offline.settle(key, delta);
    }
    if (delta === 0) return;
    await this.send({ op: 'settle', key, delta });
  }

  async read(keys: string[]): Promise<number[]> {
    if (!keys.length) return [];
    return ((await this.send({ op: 'read', keys })).values as number[] | undefined) ?? keys.map(() => 0);
  }

  async members(indexKey: string): Promise<string[]> {
    return ((await this.send({ op: 'members', key: indexKey })).members as string[] | undefined) ?? [];
  }

  async remove(): Promise<void> {
    // Resetting a counter is an admin write: made on the control plane, refused on a data plane before it gets here.
    throw new CounterStoreUnavailable('limit counters are reset on the control plane');
  }

  private async send(operation: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.options.now() < this.downUntil) throw new CounterStoreUnavailable('control plane unreachable for limit counters');
    let refused = false;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': this.options.deploymentKey },
        body: JSON.stringify(operation),
        // The deployment key goes to the configured control plane only.
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      refused = response.status < 500;
      if (!response.ok) throw new Error(`control plane answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
      return (await response.json()) as Record<string, unknown>;
    } catch (error) {
      // A refusal (a policy deleted there and not yet here, say) is about this call; anything else about the peer.
      if (!refused) this.downUntil = this.options.now() + RETRY_AFTER_MS;
      const message = error instanceof Error ? error.message : String(error);
      this.options.logger.warn({ err: message }, 'limit counters: control plane unreachable');
      throw new CounterStoreUnavailable(message, { cause: error });
    }
  }
}
