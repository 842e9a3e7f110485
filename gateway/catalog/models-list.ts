/**
 * GET /v1/models: when the caller names no provider, its workspace's saved providers' models as
 * `@slug/model` (saved-provider-models.ts); the bundled catalog when asked for with
 * x-gw-fetch-integrated-models: true; otherwise the selected provider's own list, proxied: from
 * the adapter's list path, or from the path x-gw-models-endpoint names below the provider's API
 * base (fetched as a pass-through GET is: the provider's credential, the address guard).
 */
import type { Call } from '../../core/call.js';
import { principalOf } from '../../core/call.js';
import { UpstreamError, ValidationError } from '../../core/errors.js';
import { assertStaysBelowBase } from '../proxy/proxy-wire.js';
import type { OutboundCall } from '../transport/upstream-client.js';
import type { ModelList } from '../providers/types.js';
import { resolveLeafTarget } from '../resolve/leaf-target.js';
import { resolveProviderPlan, selectsProviderByHeader } from '../resolve/provider-plan.js';
import { firstLeaf } from '../routing/first-leaf.js';
import { UpstreamAttempt } from '../transport/upstream-attempt.js';
import { ClientGone } from '../transport/client-gone.js';
import { KNOWN_MODELS } from './known-models.js';
import { savedProviderModels } from './saved-provider-models.js';
import { answerSource, readCappedBody } from '../outbound/answer-cap.js';

/** Catalog entries carry no real creation date. */
const CATALOG_CREATED = 0;

export function catalog(provider?: string): ModelList {
  const data: ModelList['data'] = [];
  for (const [name, ids] of Object.entries(KNOWN_MODELS)) {
    if (provider !== undefined && name !== provider) continue;
    for (const id of ids) data.push({ id, object: 'model', created: CATALOG_CREATED, owned_by: name, provider: name });
  }
  return { object: 'list', data };
}

export async function listModels(call: Call): Promise<ModelList> {
  const headers = call.req.headers;
  if (headers['x-gw-fetch-integrated-models'] === 'true') return catalog();
  const principal = principalOf(call);
  const { services } = call;
  if (!selectsProviderByHeader(headers)) {
    return savedProviderModels(services.store, principal.organisationId, principal.gatewayWorkspaceId);
  }

  const plan = await resolveProviderPlan({
    headers,
    model: '',
    organisationId: principal.organisationId,
    workspaceId: principal.gatewayWorkspaceId,
    savedResources: services.savedResources,
    blockInlineConfig: services.config.blockInlineConfig,
  });
  const { adapter, target, guarded } = await resolveLeafTarget({
    settings: firstLeaf(plan.config),
    model: '',
    headers,
    forwardHeaderNames: [],
    organisationId: principal.organisationId,
    workspaceId: principal.gatewayWorkspaceId,
    savedResources: services.savedResources,
    outbound: services.outbound,
  });
  const endpoint = headers['x-gw-models-endpoint'];
  let upstream: OutboundCall;
  if (typeof endpoint === 'string') {
    if (!adapter.buildProxyRequest || !adapter.parseModelsResponse) {
      throw new ValidationError(`${adapter.name} takes no x-gw-models-endpoint (gw cannot read its model list)`, 'x-gw-models-endpoint', 'pass_through_unsupported');
    }
    const proxied = await adapter.buildProxyRequest(target, { path: assertStaysBelowBase(endpoint, 'x-gw-models-endpoint') });
    upstream = { method: 'GET', url: proxied.url, headers: { ...proxied.headers, accept: 'application/json' } };
  } else if (adapter.buildModelsRequest && adapter.parseModelsResponse) {
    upstream = await adapter.buildModelsRequest(target);
  } else {
    return catalog(adapter.name);
  }

  const clientGone = new ClientGone();
  const attempt = new UpstreamAttempt(services.config.requestTimeoutMs, clientGone);
  try {
    const response = await services.upstreams.send(upstream, { provider: target.provider, customHost: target.customHost !== undefined, guarded, signal: attempt.signal });
    const text = (await readCappedBody(response.body, response.headers, services.config.maxUpstreamAnswerBytes, answerSource(upstream.url))).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Kept as text for the error message.
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const parsed = adapter.parseError(response.statusCode, body);
      throw new UpstreamError(response.statusCode, parsed.message, parsed.code ?? 'upstream_error');
    }
    return adapter.parseModelsResponse!(body);
  } catch (error) {
    throw attempt.failure(error);
  } finally {
    attempt.dispose();
  }
}
