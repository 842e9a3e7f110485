/**
 * Save-time vetting of the URLs in a guardrail's check parameters (webhookURL, logURL, jwksUri:
 * every parameter whose name ends in URL or Uri), by the outbound guard the checks' fetch uses at
 * every call: names are resolved, so one that resolves to a private address is refused now.
 */
import type { OutboundGuard } from '../outbound/outbound-guard.js';
import type { GuardrailCheckEntry } from './definition.js';

const URL_PARAMETER = /(url|uri)$/i;

export async function assertSafeCheckUrls(checks: GuardrailCheckEntry[], param: string, guard: OutboundGuard): Promise<void> {
  for (const [index, entry] of checks.entries()) {
    for (const [name, value] of Object.entries(entry.parameters ?? {})) {
      if (!URL_PARAMETER.test(name) || typeof value !== 'string') continue;
      await guard.vet(value, { param: `${param}[${index}].parameters.${name}`, code: 'guardrail_url_refused' });
    }
  }
}
