import type { CredentialKind } from '../../core/auth/principal.js';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { paginate, type Page, type PageRequest } from '../pagination.js';

export interface AuditLogEntry {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  actor_user_id: string | null;
  actor_key_id: string | null;
  /** What the actor authenticated with; null on entries written before credentials were recorded. */
  actor_credential: CredentialKind | null;
  /** The user a JWT, session or OAuth token named. */
  actor_subject: string | null;
  action: string;
  method: string;
  path: string;
  resource_type: string;
  resource_id: string | null;
  status: number;
  ip_address: string | null;
  trace_id: string | null;
  /** The request body with secrets redacted. */
  request: unknown;
  created_at: string;
}

export interface AuditLogFilter {
  start_time?: string;
  end_time?: string;
  action?: string;
  /** A user id or a key id. */
  actor_id?: string;
  resource_type?: string;
  resource_id?: string;
  workspace_id?: string;
}

type Row = Omit<AuditLogEntry, 'request'> & { request: unknown };

const toEntry = (row: Row): AuditLogEntry => ({ ...row, status: Number(row.status), request: fromJson(row.request, null) });

export class AuditLogsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async record(entry: Omit<AuditLogEntry, 'id'>): Promise<void> {
    await this.db('audit_logs').insert({ ...entry, id: randomUUID(), request: toJson(entry.request) });
  }

  list(organisationId: string, filter: AuditLogFilter, page: PageRequest): Promise<Page<AuditLogEntry>> {
    const query = this.db('audit_logs').where({ organisation_id: organisationId });
    if (filter.start_time) query.andWhere('created_at', '>=', filter.start_time);
    if (filter.end_time) query.andWhere('created_at', '<', filter.end_time);
    if (filter.action) query.andWhere({ action: filter.action });
    if (filter.resource_type) query.andWhere({ resource_type: filter.resource_type });
    if (filter.resource_id) query.andWhere({ resource_id: filter.resource_id });
    if (filter.workspace_id) query.andWhere({ workspace_id: filter.workspace_id });
    const actor = filter.actor_id;
    if (actor) query.andWhere((q) => q.where({ actor_user_id: actor }).orWhere({ actor_key_id: actor }).orWhere({ actor_subject: actor }));
    return paginate(query, page, toEntry);
  }
}
