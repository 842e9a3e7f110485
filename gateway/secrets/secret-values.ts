/**
 * Values of secret mappings at request time. A mapping names a secret reference (stored as its
 * id), optionally a key inside a structured secret and a format; the value is read from the
 * reference's manager and reused for `GW_SECRET_CACHE_SECONDS` (default 60): a value rotated in
 * the manager reaches the first request after that time. Editing the reference (invalidation
 * topic `secret_references`) drops its cached values at once. A manager that fails answers 502
 * naming the reference, never the secret; values never reach a log or a response.
 */
import { ApiError } from '../../core/errors.js';
import type { InvalidationBus } from '../../core/invalidation.js';
import type { SecretBox } from '../../store/secret-box.js';
import { openSecrets, restoreSecrets } from '../../store/secret-fields.js';
import type { SecretReferenceRecord } from '../../store/repositories/secret-references.js';
import type { Store } from '../../store/store.js';
import { InvalidatedCache } from '../invalidated-cache.js';
import { SecretManagerError, type OpenReference, type SecretManagerClient, type SecretValue } from './secret-manager.js';

export const SECRET_REFERENCES_TOPIC = 'secret_references';

export interface SecretMapping {
  target_field: string;
  /** The reference's id (slugs are resolved when the mapping is saved). */
  secret_reference_id: string;
  secret_key?: string;
  value_format?: 'string' | 'json';
}

export type SecretManagers = Readonly<Record<string, SecretManagerClient>>;

interface CachedValue {
  value: Promise<SecretValue>;
  fetchedAt: number;
}

function unavailable(slug: string, managerType: string, reason: string): ApiError {
  return new ApiError(502, 'secret_reference_unavailable', `Secret reference ${slug} (${managerType}) could not be read: ${reason}`, 'upstream_error');
}

export class SecretValues {
  private readonly references = new InvalidatedCache<OpenReference & { allowAll: boolean; workspaces: Set<string>; secretKey: string | null }>(10_000, 5 * 60_000);
  private readonly values = new Map<string, CachedValue>();

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    bus: InvalidationBus,
    private readonly managers: SecretManagers,
    private readonly now: () => number,
    private readonly ttlMs: number,
  ) {
    bus.subscribe(SECRET_REFERENCES_TOPIC, () => {
      this.references.clear();
      this.values.clear();
    });
  }

  /** target_field -> value for each mapping, in order (a later mapping of one field wins). */
  async resolve(organisationId: string, workspaceId: string, mappings: readonly SecretMapping[]): Promise<Record<string, unknown>> {
    const resolved = await Promise.all(mappings.map((mapping) => this.valueOf(organisationId, workspaceId, mapping)));
    const out: Record<string, unknown> = {};
    mappings.forEach((mapping, index) => (out[mapping.target_field] = resolved[index]));
    return out;
  }

  private async valueOf(organisationId: string, workspaceId: string, mapping: SecretMapping): Promise<unknown> {
    const reference = await this.references.get(`${organisationId}\n${mapping.secret_reference_id}`, () => this.load(organisationId, mapping.secret_reference_id));
    if (!reference) throw unavailable(mapping.secret_reference_id, 'unknown', 'the reference no longer exists');
    if (!reference.allowAll && !reference.workspaces.has(workspaceId)) {
      throw unavailable(reference.slug, reference.manager_type, 'this workspace may not use it');
    }
    const whole = await this.read(reference);
    return select(whole, mapping.secret_key ?? reference.secretKey ?? undefined, mapping.value_format ?? 'string', reference);
  }

  /** One read per reference per cache period, shared by concurrent requests. */
  private async read(reference: OpenReference): Promise<SecretValue> {
    const key = reference.id + reference.version;
    const cached = this.values.get(key);
    if (cached && this.now() - cached.fetchedAt < this.ttlMs) return cached.value;
    const manager = this.managers[reference.manager_type];
    if (!manager) throw unavailable(reference.slug, reference.manager_type, 'no client for this manager type');
    const value = manager.read(reference).catch((error: unknown) => {
      this.values.delete(key);
      // The address guard's refusal (an ApiError) says which address; anything else is the network.
      const reason =
        error instanceof SecretManagerError || error instanceof ApiError
          ? error.message
          : `the manager could not be reached (${(error as { code?: string }).code ?? (error as Error).name})`;
      throw unavailable(reference.slug, reference.manager_type, reason);
    });
    this.values.set(key, { value, fetchedAt: this.now() });
    return value;
  }

  private async load(organisationId: string, id: string) {
    const record = await this.store.secretReferences.find(organisationId, id);
    if (!record) return undefined;
    return { ...openReference(this.box, record), allowAll: record.allow_all_workspaces, workspaces: new Set(await this.store.secretReferences.workspaceIds(record.id)), secretKey: record.secret_key };
  }
}

export function openReference(box: SecretBox, record: SecretReferenceRecord): OpenReference {
  return {
    id: record.id,
    slug: record.slug,
    manager_type: record.manager_type,
    auth: restoreSecrets(record.auth_config, openSecrets(box, record.secrets)),
    secret_path: record.secret_path,
    version: record.updated_at,
  };
}

/** The mapped value: a key of a structured secret or the whole secret, as a string or parsed JSON. */
function select(whole: SecretValue, key: string | undefined, format: 'string' | 'json', reference: OpenReference): unknown {
  let value: unknown = whole;
  if (key !== undefined) {
    let object: unknown = whole;
    if (typeof whole === 'string') {
      try {
        object = JSON.parse(whole);
      } catch {
        throw unavailable(reference.slug, reference.manager_type, `the secret is not a JSON object, so it has no key ${key}`);
      }
    }
    if (!object || typeof object !== 'object' || Array.isArray(object) || !(key in object)) {
      throw unavailable(reference.slug, reference.manager_type, `the secret has no key ${key}`);
    }
    value = (object as Record<string, unknown>)[key];
  }
  if (format === 'json') {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      throw unavailable(reference.slug, reference.manager_type, 'value_format is json but the secret is not JSON');
    }
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw unavailable(reference.slug, reference.manager_type, 'the secret is structured: name a secret_key or use value_format json');
}
