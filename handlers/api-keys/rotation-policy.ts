import { ValidationError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import { normaliseRotationPeriod } from './rotation.js';

/**
 * The organisation's user_api_key_rotation_period binds workspace user keys: a key without a
 * policy gets the organisation's, a key with a different one is refused. Returns the days to use.
 */
export async function enforcedUserKeyRotation(store: Store, organisationId: string, requestedDays: number | null): Promise<number | null> {
  const organisation = await store.organisations.get(organisationId);
  const enforced = normaliseRotationPeriod(organisation?.settings.user_api_key_rotation_period as number | string | null | undefined);
  if (enforced === null) return requestedDays;
  if (requestedDays !== null && requestedDays !== enforced) {
    throw new ValidationError(
      `The organisation rotates user keys every ${enforced} days; this key asks for ${requestedDays}`,
      'rotation_period_days',
      'rotation_policy_mismatch',
    );
  }
  return enforced;
}
