import type { Call } from '../../core/call.js';
import { ValidationError } from '../../core/errors.js';
import type { LabelRecord } from '../../store/repositories/prompt-labels.js';
import { isoNow } from '../workspace-access.js';

/**
 * A label a prompt of this workspace can carry, by id or name: organisation-wide, or the
 * workspace's own. The built-in ones are created on first use.
 */
export async function labelFor(call: Call, organisationId: string, workspaceId: string, idOrName: string): Promise<LabelRecord> {
  const { promptLabels } = call.services.store;
  await promptLabels.ensureUniversal(organisationId, isoNow(call));
  const byId = await promptLabels.get(organisationId, idOrName);
  const label = byId && (byId.workspace_id === null || byId.workspace_id === workspaceId) ? byId : await promptLabels.byName(organisationId, workspaceId, idOrName);
  if (!label) throw new ValidationError(`No label ${idOrName} for this prompt's workspace`, 'label_id', 'label_not_found');
  return label;
}
