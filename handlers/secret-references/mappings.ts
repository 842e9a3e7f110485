/**
 * secret_mappings on integrations and providers, checked at save: each names a secret reference
 * that exists (by id or slug; stored as its id) and, for a provider, one its workspace may use.
 * Also which credential fields the mappings fill, so auth-type checks count them as present.
 */
import type { SecretMapping } from '../../gateway/secrets/secret-values.js';
import type { Call } from '../../core/call.js';
import { ForbiddenError, ValidationError } from '../../core/errors.js';

export async function resolveSecretMappings(
  call: Call,
  organisationId: string,
  workspaceId: string | null,
  mappings: ReadonlyArray<Record<string, unknown>>,
): Promise<SecretMapping[]> {
  const { secretReferences } = call.services.store;
  const resolved: SecretMapping[] = [];
  for (const [index, raw] of mappings.entries()) {
    const mapping = raw as unknown as SecretMapping;
    const reference = await secretReferences.find(organisationId, mapping.secret_reference_id);
    const param = `secret_mappings[${index}].secret_reference_id`;
    if (!reference) throw new ValidationError(`No secret reference ${mapping.secret_reference_id} in this organisation`, param, 'secret_reference_not_found');
    if (workspaceId !== null && !(await secretReferences.allows(reference, workspaceId))) {
      throw new ForbiddenError(`Secret reference ${reference.slug} is not enabled for this workspace`, 'secret_reference_not_allowed');
    }
    resolved.push({ ...mapping, secret_reference_id: reference.id });
  }
  return resolved;
}

/** The credential fields mappings fill, as a credential document names them (`key`, `configurations.x`). */
export function mappedFields(mappings: ReadonlyArray<Record<string, unknown>>): Set<string> {
  return new Set(mappings.map((mapping) => String(mapping.target_field)));
}
