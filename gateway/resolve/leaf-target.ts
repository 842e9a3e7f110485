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
import type { OutboundGuard } from '../outbound/outbound-guard.js';
import { vetCustomHost, type CustomHostOrigin } from './custom-host-vetting.js';

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
  /** services.outbound: the guard (trusted hosts, resolver) saves vet custom hosts with. */
  outbound: OutboundGuard;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The saved provider a leaf uses, without its `@`: from `virtual_key`, or `provider: "@slug"`. */
export function savedProviderSlugOf(settings: ConfigNode): string | undefined {
  const provider = str(settings.provider);
  const slug = str(settings.virtual_key) ?? (provider?.startsWith('@') ? provider : undefined);
  return slug?.startsWith('@') ? slug.slice(1) : slug;
}

interface BaseTarget {
  target: ProviderTarget;
  /** Where target.customHost came from, named when the address guard refuses it. */
  hostOrigin?: CustomHostOrigin;
}

/** The leaf's own custom_host: the x-gw-custom-host header (the custom-host mode: no x-gw-config) or a config target's. */
function leafHostOrigin(input: LeafInput): CustomHostOrigin {
  const fromHeader = input.headers['x-gw-config'] === undefined && input.headers['x-gw-custom-host'] === input.settings.custom_host;
  return fromHeader ? { param: 'x-gw-custom-host', source: 'x-gw-custom-host' } : { param: 'custom_host', source: "the config target's custom_host" };
}

async function baseTarget(input: LeafInput): Promise<BaseTarget> {
  const { settings } = input;
  const bare = savedProviderSlugOf(settings);
  if (bare === undefined) {
    const provider = str(settings.provider);
    if (!provider) throw new ValidationError('The config target names no provider', 'x-gw-config', 'provider_missing');
    const target = withExtraFields(targetFromFields(provider, settings), settings);
    return { target, hostOrigin: target.customHost !== undefined ? leafHostOrigin(input) : undefined };
  }
  const saved = await input.savedResources.provider(input.organisationId, input.workspaceId, bare);
  if (!saved) throw new ValidationError(`No saved provider @${bare} in this workspace`, 'x-gw-provider', 'provider_not_found');
  const perModel = saved.models[input.model];
  const target: ProviderTarget = { ...saved.target };
  let hostOrigin: CustomHostOrigin | undefined = target.customHost ? { param: 'custom_host', source: `the custom_host of saved provider @${bare}` } : undefined;
  if (str(settings.custom_host)) {
    target.customHost = str(settings.custom_host);
    hostOrigin = leafHostOrigin(input);
  } else if (perModel?.custom_host) {
    target.customHost = perModel.custom_host;
    hostOrigin = { param: 'custom_host', source: `the custom_host of model ${input.model} on the integration of saved provider @${bare}` };
  }
  if (perModel?.custom_headers) target.forwardHeaders = { ...perModel.custom_headers };
  return { target, hostOrigin };
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
  const { target, hostOrigin } = await baseTarget(input);
  const adapter = adapterFor(target.provider);
  if (!adapter) throw new ValidationError(`Unknown provider ${target.provider}`, 'x-gw-provider', 'unknown_provider');
  if (input.settings.strict_openai_compliance === false) target.strictOpenAiCompliance = false;

  const names = Array.isArray(input.settings.forward_headers) ? [...input.forwardHeaderNames, ...input.settings.forward_headers.map((n) => n.toLowerCase())] : input.forwardHeaderNames;
  const forwarded = forwardedHeaders(input.headers, names);
  if (forwarded) target.forwardHeaders = { ...target.forwardHeaders, ...forwarded };

  let guarded = false;
  const customHost = target.customHost ?? defaultCustomHost(adapter);
  if (customHost !== undefined) {
    const origin = (target.customHost !== undefined && hostOrigin) || { param: 'x-gw-custom-host', source: `the default host of ${target.provider}` };
    const vetted = await vetCustomHost(customHost, input.outbound, origin);
    target.customHost = customHost;
    guarded = !vetted.trusted;
  }
  return { adapter, target, guarded };
}
