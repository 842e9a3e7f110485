/**
 * Provider selection: turns the request's headers (and a `@slug/model` model) into the config
 * tree the route stage runs. Exactly four modes, checked in this order:
 *
 * 1. config: `x-gw-config` holds a saved config's id or slug, or the config as inline JSON;
 * 2. saved provider: `x-gw-provider: @slug`, legacy `x-gw-virtual-key: slug`, or model `@slug/model`;
 * 3. custom host: `x-gw-custom-host` + `x-gw-provider` (+ `Authorization`);
 * 4. provider name: `x-gw-provider` (+ `Authorization`, or the provider's cloud headers).
 *
 * With none of these, the caller's fallback saved provider (a prompt's virtual_key) is used; then a workspace user key falls back to its workspace's default config
 * (`defaults.user_api_key_config`, read from memory), run as mode 1; anything else is a 400.
 *
 * Modes 2-4 become a one-leaf config, so routing, retries and caching see one shape. Inline
 * modes (3, 4 and an inline config) are refused while `block_inline_config` is on.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ForbiddenError, ValidationError } from '../../core/errors.js';
import { assertValidConfig } from '../config-schema.js';
import { adapterFor } from '../providers/index.js';
import type { ConfigNode } from '../routing/config-node.js';
import type { SavedResources } from '../saved-resources.js';
import { cloudFieldsFromHeaders } from './cloud-headers.js';

export type ProviderMode = 'config' | 'saved-provider' | 'custom-host' | 'provider-key';

export interface ProviderPlan {
  mode: ProviderMode;
  /** What routing runs. */
  config: ConfigNode;
  /** The saved config's id, for the log. */
  configId: string | null;
  /** The model without its `@slug/` prefix, when the model named the saved provider. */
  model: string | undefined;
}

export interface PlanInput {
  headers: IncomingHttpHeaders;
  model: string;
  organisationId: string;
  workspaceId: string;
  savedResources: SavedResources;
  /** BLOCK_INLINE_CONFIG: forces block_inline_config on for every organisation. */
  blockInlineConfig: boolean;
  /** The caller is a workspace user key: it may fall back to the workspace's default config. */
  workspaceUserKey?: boolean;
  /** A saved provider slug to use when the headers select none (a prompt's virtual_key). */
  fallbackProviderSlug?: string;
}

const NO_MODE =
  'Select a provider: model: "@provider-slug/model" for a saved provider (GET /v1/models lists them), ' +
  'or x-gw-provider: @provider-slug (or x-gw-virtual-key), x-gw-provider with Authorization, x-gw-config, ' +
  'or x-gw-custom-host with x-gw-provider and Authorization';

const PROVIDER_HEADERS = ['x-gw-provider', 'x-gw-virtual-key', 'x-gw-config', 'x-gw-custom-host'];

/** Whether a header selects the provider (modes 1 to 4); without one only a body's `@slug/model` can. */
export function selectsProviderByHeader(headers: IncomingHttpHeaders): boolean {
  return PROVIDER_HEADERS.some((name) => headers[name] !== undefined);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  return header(headers, 'authorization')?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
}

function assertKnownProvider(name: string): void {
  if (!adapterFor(name)) throw new ValidationError(`Unknown provider ${name}`, 'x-gw-provider', 'unknown_provider');
}

async function assertInlineAllowed(input: Pick<PlanInput, 'organisationId' | 'savedResources' | 'blockInlineConfig'>, what: string): Promise<void> {
  const blocked = input.blockInlineConfig || (await input.savedResources.organisationSettings(input.organisationId)).block_inline_config === true;
  if (blocked) {
    throw new ForbiddenError(`block_inline_config is on: ${what} is refused; use a saved provider or a saved config`, 'inline_config_blocked');
  }
}

async function configPlan(input: PlanInput, raw: string): Promise<ProviderPlan> {
  if (raw.trimStart().startsWith('{')) {
    await assertInlineAllowed(input, 'an inline x-gw-config');
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new ValidationError('x-gw-config is neither a config id or slug nor valid JSON', 'x-gw-config', 'invalid_config');
    }
    return { mode: 'config', config: assertValidConfig(parsed), configId: null, model: undefined };
  }
  const saved = await input.savedResources.config(input.organisationId, input.workspaceId, raw);
  if (!saved) throw new ValidationError(`No config ${raw} in this workspace`, 'x-gw-config', 'config_not_found');
  return { mode: 'config', config: saved.config as ConfigNode, configId: saved.id, model: undefined };
}

function modelSlugOf(model: string): string | undefined {
  return model.startsWith('@') ? model.slice(1).split('/', 1)[0] : undefined;
}

function savedProviderSlugOf(headers: IncomingHttpHeaders, providerHeader: string | undefined, modelSlug: string | undefined): string | undefined {
  return providerHeader?.startsWith('@') ? providerHeader.slice(1) : (header(headers, 'x-gw-virtual-key') ?? modelSlug);
}

/**
 * Whether `Authorization` carries the provider's credential: only in the inline modes (a provider
 * name, or a custom host), which send it on upstream. With a config, a saved provider or no
 * provider signal at all, nothing reads it as a provider key, so it may carry the gw API key
 * instead (`Authorization: Bearer <gw key>`, what OpenAI clients send). Decided from headers and
 * the body's model alone, in the same order as resolveProviderPlan, before authentication.
 */
export function authorizationIsProviderCredential(headers: IncomingHttpHeaders, model: unknown): boolean {
  if (header(headers, 'x-gw-config') !== undefined) return false;
  const providerHeader = header(headers, 'x-gw-provider');
  if (savedProviderSlugOf(headers, providerHeader, typeof model === 'string' ? modelSlugOf(model) : undefined) !== undefined) return false;
  return header(headers, 'x-gw-custom-host') !== undefined || providerHeader !== undefined;
}

/** What inline selection the headers make, in resolveProviderPlan's order; undefined for saved resources or none. */
function inlineSelectionOf(headers: IncomingHttpHeaders, model: string): string | undefined {
  const configHeader = header(headers, 'x-gw-config');
  if (configHeader !== undefined) return configHeader.trimStart().startsWith('{') ? 'an inline x-gw-config' : undefined;
  const providerHeader = header(headers, 'x-gw-provider');
  if (savedProviderSlugOf(headers, providerHeader, modelSlugOf(model)) !== undefined) return undefined;
  if (header(headers, 'x-gw-custom-host') !== undefined) return 'a custom host';
  return providerHeader !== undefined ? 'an inline provider' : undefined;
}

/**
 * For work that is queued and served later (assistant runs): refuses an inline selection at once
 * while block_inline_config is on, with the 403 the chat call would answer, instead of queueing a
 * run that can only fail.
 */
export async function assertInlineSelectionAllowed(input: Pick<PlanInput, 'headers' | 'model' | 'organisationId' | 'savedResources' | 'blockInlineConfig'>): Promise<void> {
  const what = inlineSelectionOf(input.headers, input.model);
  if (what !== undefined) await assertInlineAllowed(input, what);
}

export async function resolveProviderPlan(input: PlanInput): Promise<ProviderPlan> {
  const { headers } = input;
  const configHeader = header(headers, 'x-gw-config');
  if (configHeader !== undefined) return configPlan(input, configHeader);

  const providerHeader = header(headers, 'x-gw-provider');
  const modelSlug = modelSlugOf(input.model);
  const slug = savedProviderSlugOf(headers, providerHeader, modelSlug);
  if (slug !== undefined) {
    const model = modelSlug !== undefined ? input.model.slice(modelSlug.length + 2) || undefined : undefined;
    if (modelSlug !== undefined && !model) throw new ValidationError('model must be @provider-slug/model', 'model', 'invalid_model');
    return { mode: 'saved-provider', config: { virtual_key: slug }, configId: null, model };
  }

  const customHost = header(headers, 'x-gw-custom-host');
  if (customHost !== undefined) {
    if (!providerHeader) throw new ValidationError('x-gw-custom-host needs x-gw-provider (use openai if unsure)', 'x-gw-provider', 'provider_missing');
    assertKnownProvider(providerHeader);
    await assertInlineAllowed(input, 'a custom host');
    return {
      mode: 'custom-host',
      config: { ...cloudFieldsFromHeaders(headers), provider: providerHeader, api_key: bearerToken(headers), custom_host: customHost },
      configId: null,
      model: undefined,
    };
  }

  if (providerHeader !== undefined) {
    assertKnownProvider(providerHeader);
    await assertInlineAllowed(input, 'an inline provider');
    return {
      mode: 'provider-key',
      config: { ...cloudFieldsFromHeaders(headers), provider: providerHeader, api_key: bearerToken(headers) },
      configId: null,
      model: undefined,
    };
  }
  if (input.fallbackProviderSlug !== undefined) {
    return { mode: 'saved-provider', config: { virtual_key: input.fallbackProviderSlug }, configId: null, model: undefined };
  }
  if (input.workspaceUserKey) {
    const defaultConfigId = await input.savedResources.workspaceDefaultConfig(input.organisationId, input.workspaceId);
    if (defaultConfigId !== null) return configPlan(input, defaultConfigId);
  }
  throw new ValidationError(NO_MODE, 'x-gw-provider', 'provider_missing');
}
