/**
 * The secret values in a guardrail's checks: the `headers` a check sends to its endpoint
 * (a webhook's or log collector's own Authorization, say). They are sealed at rest and masked in
 * every response like provider keys; the gateway gets them back in clear.
 */
import type { SecretBox } from '../../store/secret-box.js';
import { SECRET_FIELD_NAMES, openSecrets, restoreSecrets, sealSecrets, splitSecrets, type SecretField } from '../../store/secret-fields.js';
import type { GuardrailCheckEntry } from './definition.js';

/** `/0/parameters/headers/<name>` */
const endpointHeader: SecretField = (_key, path) => /^\/\d+\/parameters\/headers\/[^/]+$/.test(path);

/** In a config: the provider credentials, and the endpoint headers of inline guardrails at any depth. */
export const configSecretField: SecretField = (key, path) =>
  SECRET_FIELD_NAMES.has(key) || /\/(input|output)_guardrails\/\d+\/checks\/\d+\/parameters\/headers\/[^/]+$/.test(path);

/** Masks the checks' secrets and seals them; a mask sent back unchanged keeps the previous secret. */
export function sealCheckSecrets(box: SecretBox, checks: GuardrailCheckEntry[], previousSealed: string | null = null): { checks: GuardrailCheckEntry[]; secrets: string | null } {
  const split = splitSecrets(checks, openSecrets(box, previousSealed), endpointHeader);
  return { checks: split.masked, secrets: sealSecrets(box, split.secrets) };
}

export function openCheckSecrets(box: SecretBox, checks: GuardrailCheckEntry[], sealed: string | null): GuardrailCheckEntry[] {
  return sealed ? restoreSecrets(checks, openSecrets(box, sealed)) : checks;
}
