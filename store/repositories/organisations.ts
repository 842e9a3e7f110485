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

  async updateSettings(id: string, settings: Record<string, unknown>, now: string): Promise<void> {
    await this.db('organisations').where({ id }).update({ settings: toJson(settings), updated_at: now });
  }
}
