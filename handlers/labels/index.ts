import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../core/errors.js';
import type { LabelRecord } from '../../store/repositories/prompt-labels.js';
import { publishPrompts } from '../prompts/prompt-rules.js';
import { body, pathId, query, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { listWorkspaceFilter, targetWorkspaceId } from '../workspace-target.js';

const present = (label: LabelRecord) => ({
  id: label.id,
  object: 'label' as const,
  name: label.name,
  description: label.description,
  color_code: label.color_code,
  organisation_id: label.organisation_id,
  workspace_id: label.workspace_id,
  is_universal: label.is_universal,
  status: label.status,
  created_at: label.created_at,
  last_updated_at: label.updated_at,
});

/** A label the caller may see: organisation-wide ones, and its workspace's (every one for an admin key). */
async function visibleLabel(call: Call, id: string): Promise<LabelRecord> {
  const principal = principalOf(call);
  await call.services.store.promptLabels.ensureUniversal(principal.organisationId, isoNow(call));
  const label = await call.services.store.promptLabels.get(principal.organisationId, id);
  if (!label || (principal.workspaceId !== null && label.workspace_id !== null && label.workspace_id !== principal.workspaceId)) throw new NotFoundError('Label', id);
  return label;
}

/** Organisation-wide labels are the organisation's to change: a workspace key changes only its workspace's. */
function assertWritable(call: Call, label: LabelRecord): void {
  if (label.is_universal) throw new ForbiddenError(`${label.name} is a built-in label: it cannot be changed or deleted`, 'built_in_label');
  if (principalOf(call).workspaceId !== null && label.workspace_id === null) throw new ForbiddenError('An organisation-wide label can be changed only with an admin key');
}

async function assertNameFree(call: Call, workspaceId: string | null, name: string, exceptId?: string): Promise<void> {
  if (await call.services.store.promptLabels.nameTaken(principalOf(call).organisationId, workspaceId, name, exceptId)) {
    throw new ConflictError(`A label named ${name} exists`, 'label_exists', 'name');
  }
}

export const createLabel: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createLabel'>(c);
  const { store } = call.services;
  await store.promptLabels.ensureUniversal(principal.organisationId, isoNow(call));
  // An admin key without workspace_id makes an organisation-wide label.
  const workspaceId = input.workspace_id === undefined && principal.workspaceId === null ? null : await targetWorkspaceId(call, principal, input.workspace_id);
  await assertNameFree(call, workspaceId, input.name);
  const label = await store.promptLabels.create(
    { organisation_id: principal.organisationId, workspace_id: workspaceId, name: input.name, description: input.description ?? null, color_code: input.color_code ?? null },
    isoNow(call),
  );
  return { status: 201, body: present(label) };
};

export const listLabels: Handler = async (c, call) => {
  const principal = principalOf(call);
  const q = query<'listLabels'>(c);
  await call.services.store.promptLabels.ensureUniversal(principal.organisationId, isoNow(call));
  const workspaceId = await listWorkspaceFilter(call, principal, q.workspace_id);
  const page = await call.services.store.promptLabels.list(principal.organisationId, { workspace_id: workspaceId, search: q.search }, q);
  return { body: { ...page, data: page.data.map(present) } };
};

export const getLabel: Handler = async (c, call) => ({ body: present(await visibleLabel(call, pathId(c))) });

export const updateLabel: Handler = async (c, call) => {
  const label = await visibleLabel(call, pathId(c));
  assertWritable(call, label);
  const input = body<'updateLabel'>(c);
  if (input.name !== undefined && input.name !== label.name) await assertNameFree(call, label.workspace_id, input.name, label.id);
  await call.services.store.promptLabels.update(label.id, input, isoNow(call));
  // `id@label` addresses read the name.
  await publishPrompts(call, label.id);
  return { body: present((await call.services.store.promptLabels.get(label.organisation_id, label.id))!) };
};

export const deleteLabel: Handler = async (c, call) => {
  const label = await visibleLabel(call, pathId(c));
  assertWritable(call, label);
  await call.services.store.transaction((tx) => tx.promptLabels.delete(label.id));
  await publishPrompts(call, label.id);
  return { body: { id: label.id, object: 'label', deleted: true } };
};
