/**
 * Access tokens gw fetched for itself (a Vault login, an Entra token, STS credentials, an OAuth
 * client-credentials token), kept until shortly before they expire. Concurrent misses for one key
 * share one fetch, so a burst of requests costs the token endpoint one call.
 */
export interface ExpiringToken<T> {
  value: T;
  /** Epoch ms when the issuer says it stops working; undefined when it did not say. */
  expiresAt: number | undefined;
}

/** Refetch this long before the stated expiry, so a token never expires in flight. */
const EARLY_MS = 60_000;
/** A token without a stated lifetime is reused this long. */
const DEFAULT_LIFETIME_MS = 5 * 60_000;

export class TokenCache<T> {
  private readonly entries = new Map<string, { value: T; reuseUntil: number }>();
  private readonly pending = new Map<string, Promise<T>>();

  constructor(
    private readonly now: () => number,
    private readonly max = 10_000,
  ) {}

  async get(key: string, fetchToken: () => Promise<ExpiringToken<T>>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.reuseUntil > this.now()) return hit.value;
    let loading = this.pending.get(key);
    if (!loading) {
      loading = this.load(key, fetchToken).finally(() => this.pending.delete(key));
      this.pending.set(key, loading);
    }
    return loading;
  }

  /** Forgets a token the issuer's audience refused (a 401), so the next call fetches a new one. */
  drop(key: string): void {
    this.entries.delete(key);
  }

  private async load(key: string, fetchToken: () => Promise<ExpiringToken<T>>): Promise<T> {
    const token = await fetchToken();
    const now = this.now();
    const lifetime = token.expiresAt === undefined ? DEFAULT_LIFETIME_MS : token.expiresAt - now;
    // Short-lived tokens are reused for half their life instead of not at all.
    const reuseFor = lifetime > 2 * EARLY_MS ? lifetime - EARLY_MS : lifetime / 2;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value: token.value, reuseUntil: now + reuseFor });
    return token.value;
  }
}
