/**
 * GET /v1/models with no provider signal: the models of each saved provider of the caller's
 * workspace, as `@slug/model`, the form a client sends back as `model` to reach that provider.
 * A provider's models are its integration's enabled models when the integration lists any, else
 * the bundled catalog's for its provider family, else (azure-openai) its deployment; a provider
 * with none of these (ollama, vllm, ...) is not listed: its own list is one `x-gw-provider:
 * @slug` away. Read from the store: the list is not on the per-request hot path.
 */
import type { IntegrationRecord } from '../../store/repositories/integrations.js';
import type { ProviderRecord } from '../../store/repositories/providers.js';
import type { Store } from '../../store/store.js';
import type { ModelList } from '../providers/types.js';
import { KNOWN_MODELS } from './known-models.js';

const PAGE = 500;
/** Like the catalog's entries, these carry no real creation date. */
const NO_DATE = 0;

async function workspaceProviders(store: Store, organisationId: string, workspaceId: string): Promise<ProviderRecord[]> {
  const all: ProviderRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.providers.list(organisationId, { workspace_id: workspaceId }, { limit: PAGE, cursor });
    all.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return all;
}

function modelsOf(provider: ProviderRecord, integration: IntegrationRecord | undefined): readonly string[] {
  const listed = integration?.models.filter((model) => model.enabled !== false).map((model) => model.slug) ?? [];
  if (listed.length > 0) return listed;
  const known = KNOWN_MODELS[provider.ai_provider_id];
  if (known) return known;
  const deployment = provider.configurations.deployment_id ?? integration?.configurations.deployment_id;
  return typeof deployment === 'string' ? [deployment] : [];
}

export async function savedProviderModels(store: Store, organisationId: string, workspaceId: string): Promise<ModelList> {
  const integrations = new Map<string, IntegrationRecord | undefined>();
  const data: ModelList['data'] = [];
  // Oldest first, so a provider added later does not reorder the list.
  for (const provider of (await workspaceProviders(store, organisationId, workspaceId)).reverse()) {
    let integration: IntegrationRecord | undefined;
    if (provider.integration_id) {
      if (!integrations.has(provider.integration_id)) {
        const found = await store.integrations.find(organisationId, provider.integration_id);
        integrations.set(provider.integration_id, found && (await store.integrations.allows(found, workspaceId)) ? found : undefined);
      }
      integration = integrations.get(provider.integration_id);
      // The gateway refuses a provider whose integration no longer serves this workspace: not listed.
      if (!integration) continue;
    }
    const slug = `@${provider.slug}`;
    for (const model of modelsOf(provider, integration)) {
      data.push({ id: `${slug}/${model}`, object: 'model', created: NO_DATE, owned_by: provider.ai_provider_id, provider: slug });
    }
  }
  return { object: 'list', data };
}
