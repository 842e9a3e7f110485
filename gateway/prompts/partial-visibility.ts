/**
 * Save-time check of the partials a template includes (nested ones too): a partial of another
 * workspace that the prompt's workspace cannot see would be refused at every render, so it is
 * refused when the template is saved, with the render's 400. A name that is no partial at all
 * is left for later (a partial may be saved after the prompt that includes it); the render
 * refuses it if it is still missing then.
 */
import { NotFoundError, ValidationError } from '../../core/errors.js';
import type { PromptTemplateFields } from '../../store/repositories/prompts.js';
import type { Store } from '../../store/store.js';
import { parseAddress } from './prompt-address.js';
import { templateStrings } from './prompt-library.js';
import { selectVersion, type Viewer } from './prompt-versions.js';
import { parseTemplate, partialNames } from './template-tokens.js';

/** Deeper than any real prompt; the render refuses cycles and depth itself. */
const MAX_PARTIALS = 256;

export async function assertIncludedPartialsVisible(store: Store, owner: Viewer & { workspaceId: string }, fields: PromptTemplateFields): Promise<void> {
  if (fields.is_raw_template === 1) return;
  const queue = templateStrings(fields.string).flatMap((text, i) => partialNames(parseTemplate(text, `string[${i}]`)));
  const seen = new Set<string>();
  while (queue.length > 0 && seen.size < MAX_PARTIALS) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const { idOrSlug, selector } = parseAddress(name);
    const partial = await store.prompts.find(owner.organisationId, 'partial', idOrSlug);
    if (!partial) continue;
    if (partial.workspace_id !== owner.workspaceId && !(await store.prompts.isSharedWith(partial.id, owner.workspaceId))) {
      throw new ValidationError(
        `The template includes {{>${name}}}, a partial of another workspace that is not shared with this workspace: no render here could read it (share the partial with this workspace, or use one of its own)`,
        `partials.${name}`,
        'unknown_partial',
      );
    }
    let text: unknown;
    try {
      text = (await selectVersion(store, partial, selector, name)).version.template.string;
    } catch (error) {
      if (error instanceof NotFoundError) continue;
      throw error;
    }
    if (typeof text === 'string') queue.push(...partialNames(parseTemplate(text, `partials.${name}`)));
  }
}
