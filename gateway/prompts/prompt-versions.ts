/**
 * Which prompt and version an address names, as the caller may see it: a workspace caller sees
 * its workspace's prompts and those shared with it; an organisation-wide caller (admin key)
 * sees every one. Used by the Admin API (get) and the gateway (render, completions) alike.
 */
import { NotFoundError } from '../../core/errors.js';
import type { PromptKind, PromptRecord, PromptVersionRecord } from '../../store/repositories/prompts.js';
import type { Store } from '../../store/store.js';
import { parseAddress, type VersionSelector } from './prompt-address.js';

export interface Viewer {
  organisationId: string;
  /** null: organisation-wide (sees every workspace's prompts). */
  workspaceId: string | null;
}

export interface VisiblePrompt {
  record: PromptRecord;
  /** The caller sees it because another workspace shares it. */
  shared: boolean;
}

const NOUN: Record<PromptKind, string> = { prompt: 'Prompt', partial: 'Prompt partial' };

export async function visiblePrompt(store: Store, viewer: Viewer, kind: PromptKind, idOrSlug: string): Promise<VisiblePrompt> {
  const record = await store.prompts.find(viewer.organisationId, kind, idOrSlug);
  if (record) {
    if (viewer.workspaceId === null || record.workspace_id === viewer.workspaceId) return { record, shared: false };
    if (await store.prompts.isSharedWith(record.id, viewer.workspaceId)) return { record, shared: true };
  }
  throw new NotFoundError(NOUN[kind], idOrSlug);
}

export interface SelectedVersion {
  version: PromptVersionRecord;
  /** The label the address named, when it named one. */
  label: string | null;
}

export async function selectVersion(store: Store, prompt: PromptRecord, selector: VersionSelector, address: string): Promise<SelectedVersion> {
  const noun = NOUN[prompt.kind];
  if (selector.kind === 'label') {
    const label = await store.promptLabels.byName(prompt.organisation_id, prompt.workspace_id, selector.name);
    const version = label ? await store.prompts.versionWithLabel(prompt.id, label.id) : undefined;
    if (!version) throw new NotFoundError(`${noun} version labelled`, `${selector.name} (${address})`);
    return { version, label: selector.name };
  }
  const number = selector.kind === 'number' ? selector.version : selector.kind === 'latest' ? prompt.latest_version : prompt.default_version;
  const version = await store.prompts.version(prompt.id, number);
  if (!version) throw new NotFoundError(`${noun} version`, `${number} (${address})`);
  return { version, label: null };
}

/** An address (`id`, `slug@3`, `id@production`) to the visible prompt and the version it names. */
export async function resolveAddress(store: Store, viewer: Viewer, kind: PromptKind, address: string): Promise<VisiblePrompt & SelectedVersion> {
  const { idOrSlug, selector } = parseAddress(address);
  const visible = await visiblePrompt(store, viewer, kind, idOrSlug);
  return { ...visible, ...(await selectVersion(store, visible.record, selector, address)) };
}
