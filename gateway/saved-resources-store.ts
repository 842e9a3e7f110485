/**
 * SavedResources over the store: what the Admin API saved, read by the gateway from memory.
 * Every write handler publishes its topic on the invalidation bus; the caches here empty on it
 * (locally at once, on other instances through Redis), so the next gateway lookup reads the change.
 * Edits are rare next to reads, so a topic empties its whole cache rather than tracking keys.
 */
import type { InvalidationBus } from '../core/invalidation.js';
import type { SecretBox } from '../store/secret-box.js';
import { openCredentials, openSecrets, restoreSecrets } from '../store/secret-fields.js';
import type { IntegrationRecord } from '../store/repositories/integrations.js';
import type { ProviderRecord } from '../store/repositories/providers.js';
import type { Store } from '../store/store.js';
import { InvalidatedCache } from './invalidated-cache.js';
import type { ProviderTarget } from './providers/types.js';
import type { OrganisationSettings, SavedConfig, SavedProvider, SavedResources } from './saved-resources.js';
import type { SecretMapping, SecretValues } from './secrets/secret-values.js';
import { effectiveSecurity, NO_SECURITY_SETTINGS, type EffectiveSecurity, type SecuritySections } from '../core/security/settings.js';
import { needsCredentials, type ProviderCredentials } from './credentials/provider-credentials.js';

export const SAVED_RESOURCE_TOPICS = {
  providers: 'providers',
  integrations: 'integrations',
  configs: 'configs',
  organisationSettings: 'organisation_settings',
  /** Published (id: workspace id) when a workspace's defaults change or it is deleted. */
  workspaces: 'workspaces',
} as const;

/** A safety net only: invalidation is what makes changes visible at once. */
const TTL_MS = 5 * 60_000;

type Fields = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Cloud fields as saved (configs.yaml / provider-fields.yaml names) -> the adapter's target. */
export function targetFromFields(provider: string, fields: Fields): ProviderTarget {
  const target: ProviderTarget = { provider };
  const apiKey = str(fields.key) ?? str(fields.api_key);
  if (apiKey !== undefined) target.apiKey = apiKey;
  if (str(fields.custom_host)) target.customHost = str(fields.custom_host);
  if (fields.resource_name || fields.deployment_id || fields.api_version) {
    target.azure = { resourceName: str(fields.resource_name), deploymentId: str(fields.deployment_id), apiVersion: str(fields.api_version) };
  }
  if (fields.vertex_project_id || fields.vertex_region) {
    target.vertex = { projectId: str(fields.vertex_project_id), region: str(fields.vertex_region) };
  }
  if (fields.aws_access_key_id || fields.aws_secret_access_key || fields.aws_region) {
    target.bedrock = {
      accessKeyId: str(fields.aws_access_key_id),
      secretAccessKey: str(fields.aws_secret_access_key),
      sessionToken: str(fields.aws_session_token),
      region: str(fields.aws_region),
    };
  }
  return target;
}

/** A saved provider as cached: its flat fields and secret mappings kept to fill in per request. */
interface LoadedProvider {
  saved: SavedProvider;
  fields: Fields;
  /** The integration's mappings, then the provider's own (a later one of the same field wins). */
  mappings: SecretMapping[];
  authType: string;
}

/** A mapping's target field as a flat field: `key` stays, `configurations.x` becomes `x`. */
const flatField = (targetField: string) => targetField.replace(/^configurations\./, '');

/**
 * The saved provider a workspace's calls may use by slug: active, and when it belongs to an
 * integration, one whose access still includes the workspace. Saves that name a provider
 * (a prompt's virtual_key) check with this, so they refuse what the call would.
 */
export async function servingProvider(
  store: Store,
  organisationId: string,
  workspaceId: string,
  slug: string,
): Promise<{ record: ProviderRecord; integration: IntegrationRecord | undefined } | undefined> {
  const record = await store.providers.find(organisationId, slug, workspaceId);
  if (!record || record.status !== 'active') return undefined;
  if (!record.integration_id) return { record, integration: undefined };
  const integration = await store.integrations.find(organisationId, record.integration_id);
  // An integration whose access no longer includes this workspace stops serving it.
  if (!integration || !(await store.integrations.allows(integration, workspaceId))) return undefined;
  return { record, integration };
}

export class StoreSavedResources implements SavedResources {
  private readonly providers = new InvalidatedCache<LoadedProvider>(10_000, TTL_MS);
  private readonly configs = new InvalidatedCache<SavedConfig>(10_000, TTL_MS);
  private readonly settings = new InvalidatedCache<OrganisationSettings>(1_000, TTL_MS);
  private readonly workspaceDefaults = new InvalidatedCache<{ configId: string | null }>(10_000, TTL_MS);
  private readonly security = new InvalidatedCache<EffectiveSecurity>(10_000, TTL_MS);

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    bus: InvalidationBus,
    private readonly secretValues?: SecretValues,
    private readonly credentials?: ProviderCredentials,
  ) {
    const clearProviders = () => this.providers.clear();
    bus.subscribe(SAVED_RESOURCE_TOPICS.providers, clearProviders);
    bus.subscribe(SAVED_RESOURCE_TOPICS.integrations, clearProviders);
    bus.subscribe(SAVED_RESOURCE_TOPICS.configs, () => this.configs.clear());
    bus.subscribe(SAVED_RESOURCE_TOPICS.organisationSettings, () => {
      this.settings.clear();
      this.security.clear();
    });
    bus.subscribe(SAVED_RESOURCE_TOPICS.workspaces, () => {
      this.workspaceDefaults.clear();
      this.security.clear();
    });
  }

  async provider(organisationId: string, workspaceId: string, slug: string): Promise<SavedProvider | undefined> {
    const bare = slug.startsWith('@') ? slug.slice(1) : slug;
    const loaded = await this.providers.get(`${organisationId}\n${workspaceId}\n${bare}`, () => this.loadProvider(organisationId, workspaceId, bare));
    if (!loaded) return undefined;
    let { saved, fields } = loaded;
    if (loaded.mappings.length > 0 && this.secretValues) {
      // Secret-manager values are read per request (from the secret cache), never kept in this cache.
      const values = await this.secretValues.resolve(organisationId, workspaceId, loaded.mappings);
      fields = { ...fields };
      for (const [targetField, value] of Object.entries(values)) fields[flatField(targetField)] = value;
      saved = { ...saved, target: { ...targetFromFields(saved.target.provider, fields), pricingMultiplier: saved.pricing_multiplier } };
    }
    if (this.credentials && needsCredentials(loaded.authType, fields)) {
      // Tokens (OAuth, Entra, Google, STS) come from their own cache, renewed before they expire.
      saved = { ...saved, target: await this.credentials.authorize(loaded.authType, saved.target, fields) };
    }
    return saved;
  }

  config(organisationId: string, workspaceId: string, idOrSlug: string): Promise<SavedConfig | undefined> {
    return this.configs.get(`${organisationId}\n${workspaceId}\n${idOrSlug}`, () => this.loadConfig(organisationId, workspaceId, idOrSlug));
  }

  async organisationSettings(organisationId: string): Promise<OrganisationSettings> {
    const settings = await this.settings.get(organisationId, async () => (await this.store.organisations.get(organisationId))?.settings);
    return settings ?? {};
  }

  async workspaceDefaultConfig(organisationId: string, workspaceId: string): Promise<string | null> {
    const entry = await this.workspaceDefaults.get(`${organisationId}\n${workspaceId}`, async () => {
      const configId = (await this.store.workspaces.get(organisationId, workspaceId))?.defaults.user_api_key_config;
      return { configId: typeof configId === 'string' ? configId : null };
    });
    return entry?.configId ?? null;
  }

  async securitySettings(organisationId: string, workspaceId: string | null): Promise<EffectiveSecurity> {
    const found = await this.security.get(`${organisationId}\n${workspaceId ?? ''}`, async () => {
      const organisation = ((await this.organisationSettings(organisationId)).security_settings ?? {}) as SecuritySections;
      const workspace = workspaceId ? await this.store.workspaces.get(organisationId, workspaceId) : undefined;
      return effectiveSecurity(organisation, (workspace?.settings.security_settings ?? null) as SecuritySections | null);
    });
    return found ?? NO_SECURITY_SETTINGS;
  }

  /** Decrypted key and cloud fields of a stored record, flat as a config target carries them. */
  private open(record: Pick<ProviderRecord, 'masked_key' | 'configurations' | 'secrets'>): Fields {
    const document = openCredentials(this.box, record);
    return document.key === undefined ? document.configurations : { ...document.configurations, key: document.key };
  }

  private async loadProvider(organisationId: string, workspaceId: string, slug: string): Promise<LoadedProvider | undefined> {
    const found = await servingProvider(this.store, organisationId, workspaceId, slug);
    if (!found) return undefined;
    const { record, integration } = found;
    const fields = { ...(integration ? this.open(integration) : {}), ...this.open(record) };
    const models: SavedProvider['models'] = {};
    for (const model of integration?.models ?? []) {
      if (model.enabled === false) continue;
      models[model.slug] = { custom_headers: model.custom_headers, custom_host: model.configurations?.custom_host };
    }
    const saved: SavedProvider = {
      id: record.id,
      slug: record.slug,
      organisation_id: record.organisation_id,
      workspace_id: record.workspace_id,
      integration_id: record.integration_id,
      target: { ...targetFromFields(record.ai_provider_id, fields), pricingMultiplier: integration?.pricing_adjustments.multiplier ?? 1 },
      pricing_multiplier: integration?.pricing_adjustments.multiplier ?? 1,
      batch_mode: fields.batch_mode === 'native' ? 'native' : 'gateway',
      models,
    };
    const mappings = [...(integration?.secret_mappings ?? []), ...record.secret_mappings] as unknown as SecretMapping[];
    return { saved, fields, mappings, authType: integration?.auth_type ?? record.auth_type };
  }

  private async loadConfig(organisationId: string, workspaceId: string, idOrSlug: string): Promise<SavedConfig | undefined> {
    const record = await this.store.configs.find(organisationId, idOrSlug);
    if (!record || (record.workspace_id !== null && record.workspace_id !== workspaceId)) return undefined;
    const version = await this.store.configs.version(record.id, record.version);
    if (!version) return undefined;
    return {
      id: record.id,
      slug: record.slug,
      organisation_id: record.organisation_id,
      workspace_id: record.workspace_id,
      version: record.version,
      config: restoreSecrets(version.config, openSecrets(this.box, version.secrets)),
    };
  }
}
