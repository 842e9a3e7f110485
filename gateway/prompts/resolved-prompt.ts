import type { PromptTemplateFields } from '../../store/repositories/prompts.js';

/** A prompt version ready to render: what the prompt library keeps in memory. */
export interface ResolvedPrompt {
  promptId: string;
  slug: string;
  workspaceId: string;
  version: number;
  versionId: string;
  /** The label the address named (`id@production`), else null. */
  label: string | null;
  fields: PromptTemplateFields;
  /** Every partial the template includes, nested ones too, by the name it is included as. */
  partials: Record<string, string>;
}
