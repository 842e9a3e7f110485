/**
 * The provider an assistant carries for its runs: metadata `x-gw-config` (a saved config's id or
 * slug: routing with fallback, retries, cache) or `x-gw-provider` (`@slug`, a saved provider).
 * Used as if the run call had sent them as headers, when the run call's own headers select no
 * provider. Only saved resources: metadata is shown in every answer, so no inline config or key
 * is kept there. Checked when the assistant is written, and again when a run starts (the config
 * may have been deleted since).
 */
import { ValidationError } from '../../core/errors.js';
import type { SavedResources } from '../saved-resources.js';
import type { Owner } from './thread-writer.js';

const CONFIG_KEY = 'x-gw-config';
const PROVIDER_KEY = 'x-gw-provider';
/** Headers of the run call that select a provider themselves: then the assistant's selection is not used. */
const SELECTING = ['x-gw-config', 'x-gw-provider', 'x-gw-virtual-key', 'x-gw-custom-host'];

type Metadata = Record<string, string> | null | undefined;

/** `param` names the field in the error: the metadata key on an assistant write, `assistant_id` when a run starts. */
export async function assertAssistantSelection(saved: SavedResources, owner: Owner, metadata: Metadata, param: (key: string) => string = (key) => `metadata.${key}`): Promise<void> {
  const config = metadata?.[CONFIG_KEY];
  if (config !== undefined) {
    const field = param(CONFIG_KEY);
    if (config.trimStart().startsWith('{')) throw new ValidationError(`metadata.${CONFIG_KEY} names a saved config by id or slug; inline configs are not kept on an assistant`, field, 'invalid_config');
    if (!(await saved.config(owner.organisationId, owner.workspaceId, config))) throw new ValidationError(`metadata.${CONFIG_KEY}: no config ${config} in this workspace`, field, 'config_not_found');
  }
  const provider = metadata?.[PROVIDER_KEY];
  if (provider !== undefined) {
    const field = param(PROVIDER_KEY);
    const slug = /^@([^/\s]+)$/.exec(provider)?.[1];
    if (!slug) throw new ValidationError(`metadata.${PROVIDER_KEY} names a saved provider as @slug`, field, 'invalid_provider');
    if (!(await saved.provider(owner.organisationId, owner.workspaceId, slug))) throw new ValidationError(`metadata.${PROVIDER_KEY}: no saved provider @${slug} in this workspace`, field, 'provider_not_found');
  }
}

/** The run's provider-selection headers: the run call's own, else the assistant's stored selection. */
export function withAssistantSelection(headers: Record<string, string>, metadata: Metadata): Record<string, string> {
  if (SELECTING.some((name) => headers[name] !== undefined)) return headers;
  const config = metadata?.[CONFIG_KEY];
  if (config) return { ...headers, [CONFIG_KEY]: config };
  const provider = metadata?.[PROVIDER_KEY];
  if (provider) return { ...headers, [PROVIDER_KEY]: provider };
  return headers;
}
