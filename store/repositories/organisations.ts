import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';

export interface Organisation {
  id: string;
  name: string;
  slug: string;
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

type Row = Omit<Organisation, 'settings'> & { settings: unknown };

/** Organisations created from this day on block inline provider/config selection unless they opt out. */
export const BLOCK_INLINE_CONFIG_DEFAULT_FROM = '2026-06-19T00:00:00.000Z';

/**
 * The settings as the gateway and the Admin API see them: stored values over defaults, and
 * block_inline_config forced on when the deployment says so (BLOCK_INLINE_CONFIG=true).
 */
export function effectiveSettings(organisation: Organisation, forceBlockInlineConfig: boolean): Record<string, unknown> {
  const stored = organisation.settings;
  const blockByDefault = organisation.created_at >= BLOCK_INLINE_CONFIG_DEFAULT_FROM;
  return {
    user_api_key_auto_create: false,
    default_workspace_user_api_key_auto_create: false,
    user_api_key_auto_create_scopes: [],
    disable_auto_provision_user: false,
    export_settings: { deniedFields: [] },
    email_domains: [],
    user_api_key_rotation_period: null,
    security_settings: {},
    ...stored,
    block_inline_config: forceBlockInlineConfig || (typeof stored.block_inline_config === 'boolean' ? stored.block_inline_config : blockByDefault),
  };
}

const toOrganisation = (row: Row): Organisation => ({ ...row, settings: fromJson(row.settings, {}) });

export class OrganisationsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: { name: string; slug: string; settings?: Record<string, unknown> }, now: string): Promise<Organisation> {
    const row = { id: randomUUID(), name: input.name, slug: input.slug, settings: toJson(input.settings ?? {}), created_at: now, updated_at: now };
    await this.db('organisations').insert(row);
    return toOrganisation(row);
  }

  async get(id: string): Promise<Organisation | undefined> {
    const row = await this.db('organisations').where({ id }).first();
    return row ? toOrganisation(row) : undefined;
  }

  async first(): Promise<Organisation | undefined> {
    const row = await this.db('organisations').orderBy('created_at').first();
    return row ? toOrganisation(row) : undefined;
  }

  /** By id or slug (how JWTs and sign-in links name an organisation). */
  async find(idOrSlug: string): Promise<Organisation | undefined> {
    const row = await this.db('organisations').where({ id: idOrSlug }).orWhere({ slug: idOrSlug }).first();
    return row ? toOrganisation(row) : undefined;
  }

  /** The organisation when the deployment has exactly one. */
  async sole(): Promise<Organisation | undefined> {
    const rows = await this.db('organisations').limit(2);
    return rows.length === 1 ? toOrganisation(rows[0]) : undefined;
  }

  /** effectiveSettings of one organisation; what SavedResources.organisationSettings serves (and caches). */
  async settingsOf(id: string, forceBlockInlineConfig: boolean): Promise<Record<string, unknown> | undefined> {
    const organisation = await this.get(id);
    return organisation ? effectiveSettings(organisation, forceBlockInlineConfig) : undefined;
  }

  async updateSettings(id: string, settings: Record<string, unknown>, now: string): Promise<void> {
    await this.db('organisations').where({ id }).update({ settings: toJson(settings), updated_at: now });
  }
}
