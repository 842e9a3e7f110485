/** What prompt and partial handlers share: who may see and write, collections, slugs, templates. */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { PROMPTS_TOPIC } from '../../gateway/prompts/prompt-library.js';
import { servingProvider } from '../../gateway/saved-resources-store.js';
import { visiblePrompt, type Viewer, type VisiblePrompt } from '../../gateway/prompts/prompt-versions.js';
import { parseTemplate } from '../../gateway/prompts/template-tokens.js';
import type { Principal } from '../../core/auth/principal.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, ForbiddenError, ValidationError } from '../../core/errors.js';
import type { CollectionRecord } from '../../store/repositories/prompt-collections.js';
import type { PromptKind, PromptRecord, PromptTemplateFields } from '../../store/repositories/prompts.js';
import { isoNow } from '../workspace-access.js';
import { slugFromName, targetWorkspaceId } from '../workspace-target.js';

export const viewerOf = (principal: Principal): Viewer => ({ organisationId: principal.organisationId, workspaceId: principal.workspaceId });

export function visible(call: Call, kind: PromptKind, idOrSlug: string): Promise<VisiblePrompt> {
  return visiblePrompt(call.services.store, viewerOf(principalOf(call)), kind, idOrSlug);
}

/** A prompt the caller may change: one of its workspace's (a shared one is read-only where it is shared). */
export async function writable(call: Call, kind: PromptKind, idOrSlug: string): Promise<PromptRecord> {
  const { record, shared } = await visible(call, kind, idOrSlug);
  if (shared) throw new ForbiddenError(`This ${kind} is shared with your workspace: it can be changed only in its own workspace`, 'shared_prompt_read_only');
  return record;
}

/** The collection a prompt goes in: the one named (same workspace), else the workspace's default. */
export async function collectionFor(call: Call, workspaceId: string, idOrSlug: string | undefined): Promise<CollectionRecord> {
  const { store } = call.services;
  const principal = principalOf(call);
  if (idOrSlug === undefined) return store.promptCollections.ensureDefault(principal.organisationId, workspaceId, isoNow(call));
  const collection = await store.promptCollections.find(principal.organisationId, idOrSlug);
  // A workspace key is told only of its own workspace's collections.
  if (collection && collection.workspace_id !== workspaceId && principal.workspaceId === null) {
    throw new ValidationError(
      `Collection ${idOrSlug} is in workspace ${collection.workspace_id}, not in the prompt's workspace ${workspaceId}: leave workspace_id out, or name the collection's workspace`,
      'collection_id',
      'collection_workspace_mismatch',
    );
  }
  if (!collection || collection.workspace_id !== workspaceId) {
    throw new ValidationError(`No collection ${idOrSlug} in the prompt's workspace`, 'collection_id', 'collection_not_found');
  }
  return collection;
}

/**
 * Where a new prompt goes. With a collection and no workspace, an organisation key gets the
 * collection's workspace (as the reference API derives it); otherwise the workspace is the one
 * named, or the caller's, and the collection must be in it.
 */
export async function placementFor(
  call: Call,
  workspaceIdOrSlug: string | undefined,
  collectionIdOrSlug: string | undefined,
): Promise<{ workspaceId: string; collection: CollectionRecord }> {
  const principal = principalOf(call);
  if (workspaceIdOrSlug === undefined && collectionIdOrSlug !== undefined && principal.workspaceId === null) {
    const collection = await call.services.store.promptCollections.find(principal.organisationId, collectionIdOrSlug);
    if (collection) return { workspaceId: collection.workspace_id, collection };
  }
  const workspaceId = await targetWorkspaceId(call, principal, workspaceIdOrSlug);
  return { workspaceId, collection: await collectionFor(call, workspaceId, collectionIdOrSlug) };
}

export async function uniqueSlug(call: Call, kind: PromptKind, explicit: string | undefined, name: string): Promise<string> {
  const { store } = call.services;
  const organisationId = principalOf(call).organisationId;
  let slug = explicit ?? slugFromName(name);
  if (await store.prompts.slugTaken(organisationId, kind, slug)) {
    if (explicit) throw new ConflictError(`A ${kind} with slug ${slug} exists`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  return slug;
}

/** The version fields of a prompt; a partial's is `string` only. */
export const PROMPT_TEMPLATE_FIELDS = ['string', 'parameters', 'model', 'virtual_key', 'functions', 'tools', 'tool_choice', 'template_metadata', 'is_raw_template'] as const;
export const PARTIAL_TEMPLATE_FIELDS = ['string'] as const;

export function pickTemplate(input: Record<string, unknown>, fields: readonly string[]): PromptTemplateFields {
  return Object.fromEntries(fields.filter((field) => input[field] !== undefined).map((field) => [field, input[field]])) as PromptTemplateFields;
}

/** Mustache syntax is checked at save, so a broken template never becomes a version. */
export function assertTemplateParses(fields: PromptTemplateFields): void {
  const template = fields.string;
  if (typeof template === 'string') parseTemplate(template, 'string');
  else if (Array.isArray(template)) {
    template.forEach((message: { content?: unknown }, i) => {
      if (typeof message.content === 'string') parseTemplate(message.content, `string[${i}].content`);
    });
  }
}

/**
 * The template an update leads to, or undefined when it changes nothing: with `patch`, fields left
 * out come from the latest version; without, the fields sent are the whole template.
 */
export function nextTemplate(input: Record<string, unknown>, latest: PromptTemplateFields, fields: readonly string[]): PromptTemplateFields | undefined {
  const given = pickTemplate(input, fields);
  if (!Object.keys(given).length) return undefined;
  let next: PromptTemplateFields;
  if (input.patch === true) next = { ...latest, ...given };
  else {
    if (given.string === undefined) throw new ValidationError('string is required when the template changes (or send patch: true to keep the latest version\'s)', 'string');
    next = given;
  }
  assertTemplateParses(next);
  return isDeepStrictEqual(JSON.parse(JSON.stringify(next)), JSON.parse(JSON.stringify(latest))) ? undefined : next;
}

/**
 * A prompt's virtual_key names the saved provider its completions call: one the prompt's workspace
 * must be able to use, else the call would fail with this same 400 provider_not_found.
 */
export async function assertVirtualKeyServes(call: Call, organisationId: string, workspaceId: string, template: PromptTemplateFields): Promise<void> {
  const virtualKey = template.virtual_key;
  if (typeof virtualKey !== 'string') return;
  const slug = virtualKey.replace(/^@/, '');
  if (slug === '' || !(await servingProvider(call.services.store, organisationId, workspaceId, slug))) {
    throw new ValidationError(`virtual_key: no saved provider @${slug} that this prompt's workspace may use`, 'virtual_key', 'provider_not_found');
  }
}

export async function publishPrompts(call: Call, id: string): Promise<void> {
  await call.services.bus.publish(PROMPTS_TOPIC, id);
}
