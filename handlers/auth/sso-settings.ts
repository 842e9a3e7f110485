import type { components } from '../../generated/types.js';
import { principalOf, type Call } from '../../core/call.js';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { maskSecret } from '../../store/secret-box.js';
import type { SsoSettings } from '../../store/repositories/sso.js';
import { body, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { checkIdentityProvider } from './identity-provider-cache.js';

type SettingsBody = components['schemas']['SsoSettings'];

export const SSO_CALLBACK_PATH = '/v1/auth/sso/callback';

async function present(call: Call, settings: SsoSettings): Promise<SettingsBody> {
  const { config, secrets, store } = call.services;
  const organisation = await store.organisations.get(settings.organisation_id);
  return {
    object: 'sso_settings',
    organisation_id: settings.organisation_id,
    enabled: settings.enabled,
    issuer: settings.issuer,
    client_id: settings.client_id,
    client_secret: settings.client_secret === null ? null : maskSecret(secrets.open(settings.client_secret)),
    email_domains: settings.email_domains,
    default_role: settings.default_role,
    redirect_uri: `${config.publicUrl}${SSO_CALLBACK_PATH}`,
    sign_in_url: `${config.publicUrl}/v1/auth/sso/login?organisation=${encodeURIComponent(organisation?.slug ?? settings.organisation_id)}`,
    created_at: settings.created_at,
    updated_at: settings.updated_at,
  };
}

async function stored(call: Call): Promise<SsoSettings> {
  const organisationId = principalOf(call).organisationId;
  const settings = await call.services.store.sso.get(organisationId);
  if (!settings) throw new NotFoundError('SSO settings of organisation', organisationId);
  return settings;
}

export const getSsoSettings: Handler = async (_c, call) => ({ body: await present(call, await stored(call)) });

/**
 * The issuer must be https and public (the outbound guard), unless TRUSTED_CUSTOM_HOSTS lists it,
 * and, when the settings are enabled, answer discovery (else 502 identity_provider_unavailable).
 */
export const updateSsoSettings: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'updateSsoSettings'>(c);
  const { store, secrets } = call.services;
  const vetted = await call.services.outbound.vet(input.issuer, { param: 'issuer', code: 'unsafe_identity_url' });
  if (vetted.url.protocol !== 'https:' && !vetted.trusted) throw new ValidationError('issuer must be an https URL', 'issuer', 'unsafe_identity_url');
  const existing = await store.sso.get(principal.organisationId);
  const clientSecret = input.client_secret === undefined ? (existing?.client_secret ?? null) : input.client_secret === null ? null : secrets.seal(input.client_secret);
  const issuer = input.issuer.replace(/\/+$/, '');
  const enabled = input.enabled ?? true;
  // Enabled settings are used by the next anonymous sign-in: an issuer that cannot be discovered is refused now.
  if (enabled) await checkIdentityProvider(call.services, { issuer, client_id: input.client_id, client_secret: clientSecret }, 'issuer');
  await store.sso.put(
    {
      organisation_id: principal.organisationId,
      enabled,
      issuer,
      client_id: input.client_id,
      client_secret: clientSecret,
      email_domains: (input.email_domains ?? []).map((domain) => domain.toLowerCase()),
      default_role: input.default_role ?? 'member',
    },
    isoNow(call),
  );
  return { body: await present(call, (await store.sso.get(principal.organisationId))!) };
};

export const deleteSsoSettings: Handler = async (_c, call) => {
  const settings = await stored(call);
  await call.services.store.sso.delete(settings.organisation_id);
  return { body: { success: true } };
};
