/**
 * Which way a batch runs, and the provider a native batch goes to. The provider is resolved from
 * the batch's kept headers exactly as a gateway call resolves it (resolveProviderPlan, then the
 * leaf's saved provider, integration, secret references and tokens), so credentials have one path.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ValidationError } from '../../core/errors.js';
import type { Services } from '../../core/services.js';
import { readGatewayHeaders } from '../chat/gateway-headers.js';
import { resolveLeafTarget, savedProviderSlugOf, type LeafTarget } from '../resolve/leaf-target.js';
import { assertInlineSelectionAllowed, resolveProviderPlan } from '../resolve/provider-plan.js';

export type BatchMode = 'gateway' | 'native';

export interface BatchTenant {
  organisationId: string;
  gatewayWorkspaceId: string;
}

export interface NativeTarget extends LeafTarget {
  configId: string | null;
  /** Batch API calls, in the provider's own words. */
  request: NonNullable<LeafTarget['adapter']['buildBatchApiRequest']>;
}

/** The one provider a native batch is handed to; 400 when the headers select a config or a provider without a batch API. */
export async function nativeBatchTarget(services: Services, tenant: BatchTenant, headers: IncomingHttpHeaders): Promise<NativeTarget> {
  const scope = { organisationId: tenant.organisationId, workspaceId: tenant.gatewayWorkspaceId, savedResources: services.savedResources };
  const plan = await resolveProviderPlan({ ...scope, headers, model: '', blockInlineConfig: services.config.blockInlineConfig });
  if (plan.mode === 'config') {
    throw new ValidationError('A native batch goes to one provider: select it with x-gw-provider (a name or @saved-provider) rather than a config', 'x-gw-batch-mode', 'native_batch_needs_one_provider');
  }
  const { forwardHeaderNames } = readGatewayHeaders(headers);
  const leaf = await resolveLeafTarget({ ...scope, settings: plan.config, model: '', headers, forwardHeaderNames, outbound: services.outbound });
  const build = leaf.adapter.buildBatchApiRequest;
  if (!build) {
    throw new ValidationError(`${leaf.adapter.name} has no batch API gw can hand a batch to; run it through gw's pipeline (x-gw-batch-mode: gateway)`, 'x-gw-batch-mode', 'native_batch_unsupported');
  }
  return { ...leaf, configId: plan.configId, request: build.bind(leaf.adapter) };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * x-gw-batch-mode when sent; else the saved provider's `configurations.batch_mode`; else gateway.
 * Native is checked now (one provider with a batch API), so a batch that cannot be handed over is refused at create.
 */
export async function chooseBatchMode(services: Services, tenant: BatchTenant, headers: IncomingHttpHeaders): Promise<BatchMode> {
  // Refused at create, as a chat call is: its lines could only fail one by one.
  await assertInlineSelectionAllowed({ headers, model: '', organisationId: tenant.organisationId, savedResources: services.savedResources, blockInlineConfig: services.config.blockInlineConfig });
  const asked = header(headers, 'x-gw-batch-mode');
  if (asked === 'gateway') return 'gateway';
  if (asked !== 'native') {
    // A batch whose headers select nothing usable still runs through gw, whose lines fail one by one, as before.
    const scope = { organisationId: tenant.organisationId, workspaceId: tenant.gatewayWorkspaceId, savedResources: services.savedResources };
    const plan = await resolveProviderPlan({ ...scope, headers, model: '', blockInlineConfig: services.config.blockInlineConfig }).catch(() => undefined);
    const slug = plan?.mode === 'saved-provider' ? savedProviderSlugOf(plan.config) : undefined;
    const saved = slug === undefined ? undefined : await services.savedResources.provider(tenant.organisationId, tenant.gatewayWorkspaceId, slug);
    if (saved?.batch_mode !== 'native') return 'gateway';
  }
  await nativeBatchTarget(services, tenant, headers);
  return 'native';
}
