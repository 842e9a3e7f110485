import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface AgentIntegrationRecord {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  description: string | null;
  url: string;
  auth_type: 'none' | 'bearer' | 'headers' | 'oauth_client_credentials';
  /** token and headers with values masked. */
  auth_config: Record<string, unknown>;
  /** Sealed JSON of the secret values by path; null when none. */
  secrets: string | null;
  /** The client certificate for mTLS to the agent, the key masked; null: none. */
  client_tls: AgentClientTls | null;
  /** The sealed private key of client_tls. */
  client_tls_key: string | null;
  agent_card: Record<string, unknown> | null;
  /** Workspaces whose callers may invoke the agent through gw; null: every workspace. */
  workspace_ids: string[] | null;
  /** Skill ids offered through gw; null: every skill the card declares. */
  allowed_skills: string[] | null;
  /** Saved guardrail ids or slugs run on messages to the agent, and on its answers. */
  input_guardrails: string[];
  output_guardrails: string[];
  status: 'active';
  created_at: string;
  updated_at: string;
}

export interface AgentClientTls {
  certificate: string;
  /** Masked in the record; the key itself is sealed in client_tls_key. */
  private_key: string;
  ca_certificates: string | null;
}

export type NewAgentIntegration = Omit<AgentIntegrationRecord, 'id' | 'created_at' | 'updated_at' | 'status'>;

const toRecord = (row: Record<string, unknown>): AgentIntegrationRecord => ({
  ...(row as unknown as AgentIntegrationRecord),
  auth_config: fromJson(row.auth_config, {}),
  agent_card: fromJson(row.agent_card, null),
  client_tls: fromJson(row.client_tls, null),
  client_tls_key: (row.client_tls_key as string | null | undefined) ?? null,
  workspace_ids: fromJson(row.workspace_ids, null),
  allowed_skills: fromJson(row.allowed_skills, null),
  input_guardrails: fromJson(row.input_guardrails, []),
  output_guardrails: fromJson(row.output_guardrails, []),
});

function toRow(changes: Partial<AgentIntegrationRecord>): Record<string, unknown> {
  const row: Record<string, unknown> = { ...changes };
  if ('auth_config' in changes) row.auth_config = toJson(changes.auth_config);
  if ('agent_card' in changes) row.agent_card = toJson(changes.agent_card);
  if ('client_tls' in changes) row.client_tls = toJson(changes.client_tls);
  if ('workspace_ids' in changes) row.workspace_ids = toJson(changes.workspace_ids);
  if ('allowed_skills' in changes) row.allowed_skills = toJson(changes.allowed_skills);
  if ('input_guardrails' in changes) row.input_guardrails = toJson(changes.input_guardrails);
  if ('output_guardrails' in changes) row.output_guardrails = toJson(changes.output_guardrails);
  return row;
}

export class AgentIntegrationsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: NewAgentIntegration, now: string): Promise<AgentIntegrationRecord> {
    const record: AgentIntegrationRecord = { ...input, id: randomUUID(), status: 'active', created_at: now, updated_at: now };
    await this.db('agent_integrations').insert(toRow(record));
    return record;
  }

  /** By id or slug. */
  async find(organisationId: string, idOrSlug: string): Promise<AgentIntegrationRecord | undefined> {
    const row = await this.db('agent_integrations')
      .where({ organisation_id: organisationId })
      .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
      .first();
    return row ? toRecord(row) : undefined;
  }

  async slugTaken(organisationId: string, slug: string): Promise<boolean> {
    return Boolean(await this.db('agent_integrations').where({ organisation_id: organisationId, slug }).first('id'));
  }

  list(organisationId: string, filter: { search?: string }, page: PageRequest): Promise<Page<AgentIntegrationRecord>> {
    const query = this.db('agent_integrations').where({ organisation_id: organisationId });
    if (filter.search) {
      const like = `%${filter.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query.andWhere((q) => q.whereRaw(`lower(name) like ? escape '\\'`, [like]).orWhereRaw(`lower(slug) like ? escape '\\'`, [like]));
    }
    return paginate(query, page, toRecord);
  }

  async update(organisationId: string, id: string, changes: Partial<AgentIntegrationRecord>, now: string): Promise<void> {
    await this.db('agent_integrations').where({ organisation_id: organisationId, id }).update({ ...toRow(changes), updated_at: now });
  }

  async delete(organisationId: string, id: string): Promise<void> {
    await this.db('agent_integrations').where({ organisation_id: organisationId, id }).delete();
  }
}
