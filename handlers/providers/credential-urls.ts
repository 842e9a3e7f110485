/**
 * The URLs a provider or integration names (its custom host, its OAuth token endpoint, its STS
 * endpoint), vetted when saved by the outbound guard the gateway's calls go through, with the
 * code those calls answer: a destination refused at every call is refused at save instead.
 * Only the fields this request sends are vetted; stored ones were vetted when they were saved.
 */
import type { Call } from '../../core/call.js';

const URL_FIELDS: Record<string, string> = {
  custom_host: 'custom_host_refused',
  oauth_token_endpoint: 'provider_credential_refused',
  aws_sts_endpoint: 'provider_credential_refused',
};

export async function assertSafeCredentialUrls(call: Call, input: { custom_host?: string | null; configurations?: Record<string, unknown> }): Promise<void> {
  if (typeof input.custom_host === 'string') await call.services.outbound.vet(input.custom_host, { param: 'custom_host', code: URL_FIELDS.custom_host! });
  for (const [field, code] of Object.entries(URL_FIELDS)) {
    const value = input.configurations?.[field];
    if (typeof value === 'string') await call.services.outbound.vet(value, { param: `configurations.${field}`, code });
  }
}
