/**
 * How the gateway reads what the Admin API saved: providers (`@slug`, legacy virtual keys),
 * configs (id or slug) and organisation settings. Implementations serve these from memory and
 * drop entries on invalidation, so the hot path makes no database round trip per request.
 */
import type { ProviderTarget } from './providers/types.js';
import type { EffectiveSecurity } from '../core/security/settings.js';

export interface SavedProvider {
  id: string;
  slug: string;
  organisation_id: string;
  workspace_id: string;
  integration_id: string | null;
  /** Decrypted credentials and cloud fields, ready for an adapter. */
  target: ProviderTarget;
  /** Integration pricing multiplier (1 when none). */
  pricing_multiplier: number;
  /** `configurations.batch_mode` (the provider's, else its integration's): `native` hands batches to the provider's batch API. */
  batch_mode?: 'gateway' | 'native';
  /** Per-model settings from the integration: custom headers and custom host. */
  models: Record<string, { custom_headers?: Record<string, string>; custom_host?: string }>;
}

export interface SavedConfig {
  id: string;
  slug: string;
  organisation_id: string;
  workspace_id: string | null;
  version: number;
  /** The config document, already validated against the spec's config schema at save time. */
  config: Record<string, unknown>;
}

/** Published on the invalidation bus (id: organisation id) whenever an organisation's settings change. */
export const ORGANISATION_SETTINGS_TOPIC = 'organisation_settings';

export interface OrganisationSettings {
  block_inline_config?: boolean;
  [key: string]: unknown;
}

export interface SavedResources {
  provider(organisationId: string, workspaceId: string, slug: string): Promise<SavedProvider | undefined>;
  config(organisationId: string, workspaceId: string, idOrSlug: string): Promise<SavedConfig | undefined>;
  organisationSettings(organisationId: string): Promise<OrganisationSettings>;
  /** The config id a workspace's user keys fall back to (`defaults.user_api_key_config`), or null. */
  workspaceDefaultConfig(organisationId: string, workspaceId: string): Promise<string | null>;
  /** The security_settings that hold in a workspace (its own sections over the organisation's); null workspace: the organisation's. */
  securitySettings(organisationId: string, workspaceId: string | null): Promise<EffectiveSecurity>;
}
