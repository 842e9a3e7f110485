import { ValidationError } from '../../core/errors.js';
import type { EffectiveSecurity } from '../../core/security/settings.js';

const DAY_MS = 86_400_000;

const ownerOf = (security: EffectiveSecurity) => (security.source.api_keys === 'workspace' ? "the workspace's" : "the organisation's");

/** The latest expiry `max_ttl_days` allows for a key given its secret at `now` (ms), or null without that setting. */
export function latestExpiry(security: EffectiveSecurity, now: number): number | null {
  return security.maxTtlDays === null ? null : now + security.maxTtlDays * DAY_MS;
}

/**
 * The expires_at a new key (or an update naming expires_at) gets under the key's security
 * settings: a date past `max_ttl_days` is refused, no date is refused under `require_expiry` and
 * otherwise becomes the longest `max_ttl_days` allows. `undefined` (an update not naming it) stays.
 */
export function expiryUnderPolicy(security: EffectiveSecurity, requested: string | null | undefined, now: number, creating: boolean): string | null | undefined {
  if (requested === undefined && !creating) return undefined;
  const latest = latestExpiry(security, now);
  if (requested) {
    if (latest !== null && Date.parse(requested) > latest) {
      throw new ValidationError(
        `expires_at is more than ${security.maxTtlDays} days away: ${ownerOf(security)} security_settings.api_keys.max_ttl_days allows no later`,
        'expires_at',
        'api_key_ttl_too_long',
      );
    }
    return requested;
  }
  if (security.requireExpiry) {
    throw new ValidationError(`expires_at is required by ${ownerOf(security)} security_settings.api_keys.require_expiry`, 'expires_at', 'api_key_expiry_required');
  }
  if (latest === null) return null;
  if (!creating) {
    throw new ValidationError(`A key cannot be made to never expire: ${ownerOf(security)} security_settings.api_keys.max_ttl_days is ${security.maxTtlDays}`, 'expires_at', 'api_key_ttl_too_long');
  }
  return new Date(latest).toISOString();
}

/**
 * The expires_at of a key after rotation: a new secret lives no longer than `max_ttl_days` from
 * now (an older, later expiry is brought in); a key with no expiry cannot be rotated under
 * `require_expiry` alone, since there is no length to give it.
 */
export function expiryAfterRotation(security: EffectiveSecurity, current: string | null, at: number): string | null {
  const latest = latestExpiry(security, at);
  if (latest === null) {
    if (current === null && security.requireExpiry) {
      throw new ValidationError(
        `This key never expires, and ${ownerOf(security)} security_settings.api_keys.require_expiry forbids that: set its expires_at first`,
        'expires_at',
        'api_key_expiry_required',
      );
    }
    return current;
  }
  return current !== null && Date.parse(current) <= latest ? current : new Date(latest).toISOString();
}
