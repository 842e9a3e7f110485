import type { components } from '../generated/types.js';
import { ORGANISATION_SETTINGS_TOPIC } from '../gateway/saved-resources.js';
import { principalOf, type Call } from '../core/call.js';
import { NotFoundError } from '../core/errors.js';
import { effectiveSettings } from '../store/repositories/organisations.js';
import { normaliseRotationPeriod } from './api-keys/rotation.js';
import { body, type Handler } from './types.js';
import { isoNow } from './workspace-access.js';
import { assertCallerStaysAllowed, assertValidRanges } from './workspaces/security-settings.js';

type SettingsBody = components['schemas']['OrganisationSettings'];

async function present(call: Call, organisationId: string): Promise<SettingsBody> {
  const organisation = await call.services.store.organisations.get(organisationId);
  if (!organisation) throw new NotFoundError('Organisation', organisationId);
  const forced = call.services.config.blockInlineConfig;
  const settings = effectiveSettings(organisation, forced);
  const emailDomains = settings.email_domains as Array<{ domain: string; allow_subdomains?: boolean }>;
  return {
    object: 'organisation_settings',
    organisation_id: organisation.id,
    ...(settings as Omit<SettingsBody, 'object' | 'organisation_id' | 'block_inline_config_forced'>),
    email_domains: emailDomains.map(({ domain, allow_subdomains }) => ({ domain, allow_subdomains: allow_subdomains ?? false })),
    block_inline_config_forced: forced,
  };
}

export const getOrganisationSettings: Handler = async (_c, call) => ({ body: await present(call, principalOf(call).organisationId) });

/** Top-level fields replace what is stored; the gateway hears the change on the bus at once. */
export const updateOrganisationSettings: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'updateOrganisationSettings'>(c) as Record<string, unknown>;
  const { store, bus } = call.services;
  const organisation = await store.organisations.get(principal.organisationId);
  if (!organisation) throw new NotFoundError('Organisation', principal.organisationId);
  assertValidRanges(input.security_settings as Record<string, unknown> | undefined);
  // Organisation-wide callers are held to the organisation's ranges.
  if (principal.workspaceId === null) assertCallerStaysAllowed(input.security_settings as Record<string, unknown> | undefined, call.ip);
  const next = { ...organisation.settings, ...input };
  if ('user_api_key_rotation_period' in input) {
    next.user_api_key_rotation_period = normaliseRotationPeriod(input.user_api_key_rotation_period as number | string | null);
  }
  await store.organisations.updateSettings(organisation.id, next, isoNow(call));
  await bus.publish(ORGANISATION_SETTINGS_TOPIC, organisation.id);
  return { body: await present(call, organisation.id) };
};
