export const PROMPT_SCOPES = ['prompts.create', 'prompts.read', 'prompts.list', 'prompts.update', 'prompts.delete'];
export const PARTIAL_SCOPES = ['prompt_partials.create', 'prompt_partials.read', 'prompt_partials.list', 'prompt_partials.update', 'prompt_partials.delete'];
export const COLLECTION_SCOPES = ['collections.create', 'collections.read', 'collections.list', 'collections.update', 'collections.delete'];
export const LABEL_SCOPES = ['labels.create', 'labels.read', 'labels.list', 'labels.update', 'labels.delete'];
export const LIBRARY_SCOPES = [...PROMPT_SCOPES, ...PARTIAL_SCOPES, ...COLLECTION_SCOPES, ...LABEL_SCOPES, 'completions.write'];
