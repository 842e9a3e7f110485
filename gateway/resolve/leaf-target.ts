/**
 * One routing leaf's settings -> the adapter and ProviderTarget to call, with the custom host
 * (the leaf's, a saved provider's, or a self-hosted adapter's default) vetted by the outbound
 * address guard. Saved providers come from SavedResources, which serves them from memory.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ValidationError } from '../../core/errors.js';
import { adapterFor, defaultCustomHost } from '../providers/index.js';
import type { ProviderAdapter, ProviderTarget } from '../providers/types.js';
import type { ConfigNode } from '../routing/config-node.js';
import type { SavedResources } from '../saved-resources.js';
import { targetFromFields } from '../saved-resources-store.js';
import { forwardedHeaders } from '../chat/gateway-headers.js';
import { vetCustomHost } from './custom-host-vetting.js';

export interface LeafTarget {
  adapter: ProviderAdapter;
  target: ProviderTarget;
  /** Connect through the DNS-guarded agent: an untrusted custom host. */
  guarded: boolean;
}

export interface LeafInput {
  settings: ConfigNode;
  model: string;
  headers: IncomingHttpHeaders;
  /** Lower-case names from x-gw-forward-headers. */
  forwardHeaderNames: readonly string[];
  organisationId: string;
  workspaceId: string;
  savedResources: SavedResources;
  trustedHosts: readonly string[];
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The saved provider a leaf uses, without its `@`: from `virtual_key`, or `provider: "@slug"`. */
export function savedProviderSlugOf(settings: ConfigNode): string | undefined {
  const provider = str(settings.provider);
  const slug = str(settings.virtual_key) ?? (provider?.startsWith('@') ? provider : undefined);
  return slug?.startsWith('@') ? slug.slice(1) : slug;
}

async function baseTarget(input: LeafInput): Promise<ProviderTarget> {
  const { settings } = input;
  const bare = savedProviderSlugOf(settings);
  if (bare === undefined) {
    const provider = str(settings.provider);
    if (!provider) throw new ValidationError('The config target names no provider', 'x-gw-config', 'provider_missing');
    return withExtraFields(targetFromFields(provider, settings), settings);
  }
  const saved = await input.savedResources.provider(input.organisationId, input.workspaceId, bare);
  if (!saved) throw new ValidationError(`No saved provider @${bare} in this workspace`, 'x-gw-provider', 'provider_not_found');
  const perModel = saved.models[input.model];
  const target: ProviderTarget = { ...saved.target };
  const customHost = str(settings.custom_host) ?? perModel?.custom_host;
  if (customHost) target.customHost = customHost;
  if (perModel?.custom_headers) target.forwardHeaders = { ...perModel.custom_headers };
  return target;
}

/** Fields targetFromFields does not carry: Azure's model name, Vertex's request type, Bedrock's key id from Authorization. */
function withExtraFields(target: ProviderTarget, settings: ConfigNode): ProviderTarget {
  const modelName = str(settings.azure_model_name);
  if (modelName) target.azure = { ...target.azure, modelName };
  const requestType = str(settings.vertex_request_type);
  if (requestType) target.vertex = { ...target.vertex, requestType };
  if (target.provider === 'bedrock' && target.apiKey && !target.bedrock?.accessKeyId) {
    target.bedrock = { ...target.bedrock, accessKeyId: target.apiKey };
  }
  return target;
}

export async function resolveLeafTarget(input: LeafInput): Promise<LeafTarget> {
  const target = await baseTarget(input);
  const adapter = adapterFor(target.provider);
  if (!adapter) throw new ValidationError(`Unknown provider ${target.provider}`, 'x-gw-provider', 'unknown_provider');
  if (input.settings.strict_openai_compliance === false) target.strictOpenAiCompliance = false;

  const names = Array.isArray(input.settings.forward_headers) ? [...input.forwardHeaderNames, ...input.settings.forward_headers.map((n) => n.toLowerCase())] : input.forwardHeaderNames;
  const forwarded = forwardedHeaders(input.headers, names);
  if (forwarded) target.forwardHeaders = { ...target.forwardHeaders, ...forwarded };

  let guarded = false;
  const customHost = target.customHost ?? defaultCustomHost(adapter);
  if (customHost !== undefined) {
    const vetted = await vetCustomHost(customHost, input.trustedHosts);
    target.customHost = customHost;
    guarded = !vetted.trusted;
  }
  return { adapter, target, guarded };
}
