/**
 * What an assistant or thread names, checked when it is written, as a run would use it: vector
 * stores and files of the caller's workspace (404 otherwise, as threads already were), inline
 * vector stores made now, and a `@slug/model` naming a saved provider this workspace has (400).
 * A reference to another workspace's object is refused here instead of being skipped or failing
 * at every run.
 */
import { ValidationError } from '../../core/errors.js';
import type { Services } from '../../core/services.js';
import type { StoredPrincipal } from '../batches/line-call.js';
import { threadStores } from './thread-files.js';
import type { Owner } from './thread-writer.js';
import type { ToolResources } from './wire.js';

export async function checkedToolResources(
  services: Services,
  owner: Owner,
  principal: StoredPrincipal,
  resources: ToolResources | null | undefined,
): Promise<ToolResources> {
  return threadStores(services, owner, principal, { tool_resources: resources }, [], '');
}

/** A model of the `@slug/model` form must name a saved provider of the owner's workspace: the run would find none. */
export async function assertModelProvider(services: Services, owner: Owner, model: string | undefined, param = 'model'): Promise<void> {
  if (!model?.startsWith('@')) return;
  const slug = model.slice(1).split('/', 1)[0]!;
  if (!slug || !(await services.savedResources.provider(owner.organisationId, owner.workspaceId, slug))) {
    throw new ValidationError(`${param} names @${slug}, which is no saved provider of this workspace`, param, 'provider_not_found');
  }
}
