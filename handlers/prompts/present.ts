/** Prompts, partials and their versions as the API answers with them. */
import type { PromptRecord, PromptVersionRecord } from '../../store/repositories/prompts.js';

export interface Sharing {
  /** The caller sees it because another workspace shares it. */
  shared: boolean;
  /** With show_prompt_share: the workspaces it is shared with. */
  sharedWith?: string[];
}

const sharing = (share: Sharing) => ({ is_shared: share.shared, ...(share.sharedWith ? { shared_with: share.sharedWith } : {}) });

export function presentPrompt(record: PromptRecord, version: PromptVersionRecord, share: Sharing) {
  const t = version.template;
  return {
    id: record.id,
    object: 'prompt' as const,
    slug: record.slug,
    name: record.name,
    description: record.description,
    collection_id: record.collection_id,
    workspace_id: record.workspace_id,
    organisation_id: record.organisation_id,
    string: t.string,
    parameters: t.parameters ?? {},
    model: t.model ?? null,
    virtual_key: t.virtual_key ?? null,
    functions: t.functions ?? null,
    tools: t.tools ?? null,
    tool_choice: t.tool_choice ?? null,
    template_metadata: t.template_metadata ?? null,
    is_raw_template: t.is_raw_template ?? 0,
    prompt_version: version.version,
    prompt_version_id: version.id,
    version_id: version.id,
    prompt_version_status: version.status,
    prompt_version_description: version.description,
    prompt_version_label_id: version.label_id,
    default_version: record.default_version,
    latest_version: record.latest_version,
    status: record.status,
    ...sharing(share),
    created_at: record.created_at,
    last_updated_at: record.updated_at,
  };
}

export function presentPromptSummary(record: PromptRecord, version: PromptVersionRecord | undefined, share: Sharing) {
  return {
    id: record.id,
    object: 'prompt' as const,
    slug: record.slug,
    name: record.name,
    description: record.description,
    collection_id: record.collection_id,
    workspace_id: record.workspace_id,
    model: version?.template.model ?? null,
    default_version: record.default_version,
    latest_version: record.latest_version,
    status: record.status,
    ...sharing(share),
    created_at: record.created_at,
    last_updated_at: record.updated_at,
  };
}

export function presentPromptVersion(record: PromptRecord, version: PromptVersionRecord) {
  return {
    id: version.id,
    object: 'prompt_version' as const,
    prompt_id: version.prompt_id,
    prompt_version: version.version,
    prompt_template: version.template,
    prompt_description: version.description,
    label_id: version.label_id,
    is_default: version.version === record.default_version,
    status: version.status,
    created_at: version.created_at,
  };
}

export function presentPartial(record: PromptRecord, version: PromptVersionRecord, share: Sharing) {
  return {
    id: record.id,
    object: 'partial' as const,
    slug: record.slug,
    name: record.name,
    description: record.description,
    collection_id: record.collection_id,
    workspace_id: record.workspace_id,
    organisation_id: record.organisation_id,
    string: typeof version.template.string === 'string' ? version.template.string : '',
    version: version.version,
    version_description: version.description,
    prompt_partial_version_id: version.id,
    version_id: version.id,
    default_version: record.default_version,
    latest_version: record.latest_version,
    status: record.status,
    ...sharing(share),
    created_at: record.created_at,
    last_updated_at: record.updated_at,
  };
}

export function presentPartialVersion(record: PromptRecord, version: PromptVersionRecord) {
  return {
    id: version.id,
    object: 'partial_version' as const,
    prompt_partial_id: record.id,
    prompt_partial_version_id: version.id,
    version: version.version,
    string: typeof version.template.string === 'string' ? version.template.string : '',
    description: version.description,
    is_default: version.version === record.default_version,
    prompt_version_status: version.status,
    created_at: version.created_at,
  };
}
