/**
 * Prompts as the gateway reads them (render, completions): resolved once (prompt, version,
 * label, partials) and served from memory, like saved configs. Every prompt, partial, label and
 * sharing write publishes PROMPTS_TOPIC, which empties the cache here and, through Redis, on
 * every other instance; deleting a workspace (its shares go) empties it too.
 */
import type { InvalidationBus } from '../../core/invalidation.js';
import type { Store } from '../../store/store.js';
import { InvalidatedCache } from '../invalidated-cache.js';
import { SAVED_RESOURCE_TOPICS } from '../saved-resources-store.js';
import { loadPartials } from './partial-tree.js';
import { resolveAddress, type Viewer } from './prompt-versions.js';
import type { ResolvedPrompt } from './resolved-prompt.js';
import { parseTemplate } from './template-tokens.js';

export const PROMPTS_TOPIC = 'prompts';

/** A safety net only: invalidation is what makes changes visible at once. */
const TTL_MS = 5 * 60_000;

export function templateStrings(template: unknown): string[] {
  if (typeof template === 'string') return [template];
  if (!Array.isArray(template)) return [];
  const out: string[] = [];
  for (const message of template as Array<{ content?: unknown }>) {
    if (typeof message.content === 'string') out.push(message.content);
    else if (Array.isArray(message.content)) for (const part of message.content as Array<{ type?: string; text?: unknown }>) if (part.type === 'text' && typeof part.text === 'string') out.push(part.text);
  }
  return out;
}

export class PromptLibrary {
  private readonly cache = new InvalidatedCache<ResolvedPrompt>(10_000, TTL_MS);

  constructor(
    private readonly store: Store,
    bus: InvalidationBus,
  ) {
    const clear = () => this.cache.clear();
    bus.subscribe(PROMPTS_TOPIC, clear);
    bus.subscribe(SAVED_RESOURCE_TOPICS.workspaces, clear);
  }

  /** Throws NotFoundError (no such prompt or version here) or ValidationError (unknown partial, cycle). */
  async resolve(viewer: Viewer, address: string): Promise<ResolvedPrompt> {
    const key = `${viewer.organisationId}\n${viewer.workspaceId ?? ''}\n${address}`;
    return (await this.cache.get(key, () => this.load(viewer, address)))!;
  }

  private async load(viewer: Viewer, address: string): Promise<ResolvedPrompt> {
    const { record, version, label } = await resolveAddress(this.store, viewer, 'prompt', address);
    const fields = version.template;
    // Partials are looked up as the prompt's own workspace sees them, wherever it is used from.
    const owner: Viewer = { organisationId: record.organisation_id, workspaceId: record.workspace_id };
    const roots = fields.is_raw_template === 1 ? [] : templateStrings(fields.string).map((text, i) => parseTemplate(text, `string[${i}]`));
    const partials = await loadPartials(roots, async (name) => {
      const partial = await resolveAddress(this.store, owner, 'partial', name);
      return typeof partial.version.template.string === 'string' ? partial.version.template.string : undefined;
    });
    return {
      promptId: record.id,
      slug: record.slug,
      workspaceId: record.workspace_id,
      version: version.version,
      versionId: version.id,
      label,
      fields,
      partials: Object.fromEntries(partials),
    };
  }
}
