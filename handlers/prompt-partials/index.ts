import { libraryOperations, type LibraryKind } from '../prompts/library-operations.js';
import { presentPartial, presentPartialVersion } from '../prompts/present.js';
import { PARTIAL_TEMPLATE_FIELDS } from '../prompts/prompt-rules.js';
import { sharingOperations } from '../prompts/sharing-operations.js';
import type { Handler } from '../types.js';

const PARTIALS: LibraryKind = {
  kind: 'partial',
  templateFields: PARTIAL_TEMPLATE_FIELDS,
  present: presentPartial,
  presentListItem: (record, version, share) => presentPartial(record, version!, share),
  presentVersion: presentPartialVersion,
  presentUpdated: (record, version, created) => ({ id: record.id, slug: record.slug, prompt_partial_version_id: version.id, version: version.version, new_version: created }),
};

const library = libraryOperations(PARTIALS);
const sharing = sharingOperations(PARTIALS);

export const createPromptPartial: Handler = library.create;
export const listPromptPartials: Handler = library.list;
export const getPromptPartial: Handler = library.get;
export const updatePromptPartial: Handler = library.update;
export const deletePromptPartial: Handler = library.remove;
export const getPromptPartialVersions: Handler = library.versions;
export const updatePromptPartialDefault: Handler = library.makeDefault;
export const sharePromptPartial: Handler = sharing.share;
export const forkPromptPartial: Handler = sharing.fork;
export const unsharePromptPartial: Handler = sharing.unshare;
export const unsharePromptPartialDelete: Handler = sharing.unshareDelete;
