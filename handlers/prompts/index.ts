import { principalOf } from '../../core/call.js';
import type { Store } from '../../store/store.js';
import { NotFoundError } from '../../core/errors.js';
import { labelFor } from '../labels/label-lookup.js';
import { pathId, type Handler } from '../types.js';
import { libraryOperations, type LibraryKind } from './library-operations.js';
import { presentPrompt, presentPromptSummary, presentPromptVersion } from './present.js';
import { PROMPT_TEMPLATE_FIELDS, publishPrompts, visible, writable } from './prompt-rules.js';
import { sharingOperations } from './sharing-operations.js';
export { createPromptCompletion, createPromptRender } from './render.js';

const PROMPTS: LibraryKind = {
  kind: 'prompt',
  templateFields: PROMPT_TEMPLATE_FIELDS,
  present: presentPrompt,
  presentListItem: presentPromptSummary,
  presentVersion: presentPromptVersion,
  presentUpdated: (record, version, created) => ({ id: record.id, slug: record.slug, prompt_version_id: version.id, prompt_version: version.version, new_version: created }),
};

const library = libraryOperations(PROMPTS);
const sharing = sharingOperations(PROMPTS);

export const createPrompt: Handler = library.create;
export const listPrompts: Handler = library.list;
export const getPrompt: Handler = library.get;
export const updatePrompt: Handler = library.update;
export const deletePrompt: Handler = library.remove;
export const getPromptVersions: Handler = library.versions;
export const updatePromptDefault: Handler = library.makeDefault;
export const sharePrompt: Handler = sharing.share;
export const forkPrompt: Handler = sharing.fork;
export const unsharePrompt: Handler = sharing.unshare;
export const unsharePromptDelete: Handler = sharing.unshareDelete;

/** `versionId` is a version's id or its number. */
async function versionOf(promptId: string, versionId: string, store: Store) {
  const version = /^[0-9]+$/.test(versionId) ? await store.prompts.version(promptId, Number(versionId)) : await store.prompts.versionById(promptId, versionId);
  if (!version) throw new NotFoundError('Prompt version', versionId);
  return version;
}

export const getPromptByVersion: Handler = async (c, call) => {
  const { record, shared } = await visible(call, 'prompt', pathId(c));
  const version = await versionOf(record.id, String(c.request.params.versionId), call.services.store);
  return { body: presentPrompt(record, version, { shared }) };
};

/** Versions are immutable: only the label that points at one moves. */
export const updatePromptVersion: Handler = async (c, call) => {
  const record = await writable(call, 'prompt', pathId(c));
  const { store } = call.services;
  const version = await versionOf(record.id, String(c.request.params.versionId), store);
  const given = (c.request.requestBody as { label_id: string | null }).label_id;
  const label = given === null ? null : await labelFor(call, principalOf(call).organisationId, record.workspace_id, given);
  await store.prompts.setLabel(record.id, version.id, label?.id ?? null);
  await publishPrompts(call, record.id);
  return { body: presentPromptVersion(record, (await store.prompts.versionById(record.id, version.id))!) };
};
