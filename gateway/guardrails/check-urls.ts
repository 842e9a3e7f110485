/**
 * Save-time vetting of the URLs in a guardrail's check parameters (webhookURL, logURL, jwksUri:
 * every parameter whose name ends in URL or Uri). Without a DNS lookup: IP literals, reserved names
 * and non-http(s) URLs are refused at once; names are vetted again, resolved, at every call.
 */
import { vetOutboundUrl } from '../outbound/url-guard.js';
import type { GuardrailCheckEntry } from './definition.js';

const URL_PARAMETER = /(url|uri)$/i;

export async function assertSafeCheckUrls(checks: GuardrailCheckEntry[], param: string, trustedHosts: readonly string[]): Promise<void> {
  for (const [index, entry] of checks.entries()) {
    for (const [name, value] of Object.entries(entry.parameters ?? {})) {
      if (!URL_PARAMETER.test(name) || typeof value !== 'string') continue;
      await vetOutboundUrl(value, { trustedHosts, resolveNames: false, param: `${param}[${index}].parameters.${name}`, code: 'guardrail_url_refused' });
    }
  }
}
