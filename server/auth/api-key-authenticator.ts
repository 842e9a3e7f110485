import { ALL_API_KEYS, API_KEYS_TOPIC } from '../../core/auth/topics.js';
import { LRUCache } from 'lru-cache';
import { UnauthorizedError } from '../../core/errors.js';
import type { InvalidationBus } from '../../core/invalidation.js';
import type { Store } from '../../store/store.js';
import type { ApiKeyRecord } from '../../store/repositories/api-keys.js';
import { hashApiKeySecret } from '../../core/auth/api-key-secret.js';
import type { Principal } from '../../core/auth/principal.js';
import { scopesWithinRole } from '../../core/auth/roles.js';
import { roleOf } from '../../store/role-of.js';


/** An unknown secret is remembered briefly so a flood of bad keys does not become a flood of queries. */
const UNKNOWN_KEY_TTL_MS = 5_000;

type Entry = { principal: Principal } | { unknownUntil: number };

/**
 * Resolves a gw API key secret to a Principal. Hits are served from memory; a key's entry is
 * dropped when the key or its user's role changes (API_KEYS_TOPIC on the invalidation bus), so a revoked key fails
 * on the very next request on every instance.
 */
export class ApiKeyAuthenticator {
  private readonly cache: LRUCache<string, Entry>;
  /** In-flight lookups, so concurrent first requests with one key make one query. */
  private readonly pending = new Map<string, Promise<Entry>>();
  /** Bumped on every eviction: a lookup that raced with one is not cached. */
  private generation = 0;

  constructor(
    private readonly store: Store,
    bus: InvalidationBus,
    private readonly now: () => number,
    maxEntries = 50_000,
  ) {
    this.cache = new LRUCache({ max: maxEntries });
    bus.subscribe(API_KEYS_TOPIC, (keyId) => this.evict(keyId));
  }

  /** `header` names where the secret was read, for the error message (x-gw-api-key, or Authorization). */
  async authenticate(secret: string | undefined, header = 'x-gw-api-key'): Promise<Principal> {
    if (!secret) throw new UnauthorizedError('Missing gw API key: send it in the x-gw-api-key header', 'missing_api_key');
    const hash = hashApiKeySecret(secret);
    let entry = this.cache.get(hash);
    if (!entry || ('unknownUntil' in entry && entry.unknownUntil < this.now())) {
      entry = await this.load(hash);
    }
    if ('unknownUntil' in entry) throw new UnauthorizedError(`Invalid gw API key (read from the ${header} header)`);
    const { principal } = entry;
    if (principal.validUntil !== null && principal.validUntil <= this.now()) {
      throw new UnauthorizedError('This gw API key has expired', 'expired_api_key');
    }
    return principal;
  }

  private load(hash: string): Promise<Entry> {
    let lookup = this.pending.get(hash);
    if (!lookup) {
      lookup = this.lookup(hash).finally(() => this.pending.delete(hash));
      this.pending.set(hash, lookup);
    }
    return lookup;
  }

  private async lookup(hash: string): Promise<Entry> {
    const generation = this.generation;
    const record = await this.store.apiKeys.findBySecretHash(hash);
    const principal = record && record.status === 'active' ? await this.toPrincipal(record, hash) : undefined;
    const entry: Entry = principal ? { principal } : { unknownUntil: this.now() + UNKNOWN_KEY_TTL_MS };
    if (generation === this.generation) this.cache.set(hash, entry);
    return entry;
  }

  private async toPrincipal(record: ApiKeyRecord, hash: string): Promise<Principal | undefined> {
    const limits: number[] = [];
    if (record.expires_at) limits.push(Date.parse(record.expires_at));
    if (record.key_hash !== hash) {
      // The previous secret of a rotated key: valid only until its transition period ends.
      if (!record.previous_key_expires_at) return undefined;
      limits.push(Date.parse(record.previous_key_expires_at));
    }
    const workspaceId = record.workspace_id ?? (await this.store.workspaces.getDefault(record.organisation_id))?.id;
    if (!workspaceId) return undefined;
    let scopes = record.scopes;
    if (record.user_id) {
      // A key acting for a person holds no more than that person's role allows today (a demotion included).
      const role = await roleOf(this.store, record.organisation_id, record.user_id, record.workspace_id);
      if (!role) return undefined;
      scopes = scopesWithinRole(role, scopes);
    }
    return {
      credential: 'api_key',
      keyId: record.id,
      subject: null,
      organisationId: record.organisation_id,
      workspaceId: record.workspace_id,
      gatewayWorkspaceId: workspaceId,
      userId: record.user_id,
      keyType: record.type,
      subType: record.sub_type,
      scopes: new Set(scopes),
      validUntil: limits.length ? Math.min(...limits) : null,
      ...(record.allowed_models ? { allowedModels: record.allowed_models } : {}),
    };
  }

  /** Drops every cached entry of one key (current and previous secret), or of all keys (ALL_API_KEYS). */
  evict(keyId: string): void {
    this.generation++;
    if (keyId === ALL_API_KEYS) return void this.cache.clear();
    for (const [hash, entry] of this.cache.entries()) {
      if ('principal' in entry && entry.principal.keyId === keyId) this.cache.delete(hash);
    }
  }
}
