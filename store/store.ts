import type { Knex } from 'knex';
import { ApiKeysRepository } from './repositories/api-keys.js';
import { AuditLogsRepository } from './repositories/audit-logs.js';
import { InvitationsRepository } from './repositories/invitations.js';
import { WorkspaceMembersRepository } from './repositories/workspace-members.js';
import { ConfigsRepository } from './repositories/configs.js';
import { IntegrationsRepository } from './repositories/integrations.js';
import { ProvidersRepository } from './repositories/providers.js';
import { OrganisationsRepository } from './repositories/organisations.js';
import { SemanticCacheEntriesRepository } from './repositories/semantic-cache-entries.js';
import { RequestLogsRepository } from './repositories/request-logs.js';
import { LogFeedbackRepository } from './repositories/log-feedback.js';
import { LogExportsRepository } from './repositories/log-exports.js';
import { UsersRepository } from './repositories/users.js';
import { WorkspacesRepository } from './repositories/workspaces.js';

/**
 * The repositories over one knex handle. `transaction` hands out a Store over the transaction,
 * so writes that span repositories commit or roll back together.
 */
export class Store {
  readonly organisations: OrganisationsRepository;
  readonly workspaces: WorkspacesRepository;
  readonly users: UsersRepository;
  readonly apiKeys: ApiKeysRepository;
  readonly workspaceMembers: WorkspaceMembersRepository;
  readonly invitations: InvitationsRepository;
  readonly auditLogs: AuditLogsRepository;
  readonly integrations: IntegrationsRepository;
  readonly providers: ProvidersRepository;
  readonly configs: ConfigsRepository;
  readonly semanticCacheEntries: SemanticCacheEntriesRepository;
  readonly requestLogs: RequestLogsRepository;
  readonly logFeedback: LogFeedbackRepository;
  readonly logExports: LogExportsRepository;

  constructor(readonly db: Knex | Knex.Transaction) {
    this.organisations = new OrganisationsRepository(db);
    this.workspaces = new WorkspacesRepository(db);
    this.users = new UsersRepository(db);
    this.apiKeys = new ApiKeysRepository(db);
    this.workspaceMembers = new WorkspaceMembersRepository(db);
    this.invitations = new InvitationsRepository(db);
    this.auditLogs = new AuditLogsRepository(db);
    this.integrations = new IntegrationsRepository(db);
    this.providers = new ProvidersRepository(db);
    this.configs = new ConfigsRepository(db);
    this.semanticCacheEntries = new SemanticCacheEntriesRepository(db);
    this.requestLogs = new RequestLogsRepository(db);
    this.logFeedback = new LogFeedbackRepository(db);
    this.logExports = new LogExportsRepository(db);
  }

  transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.db.transaction((trx) => work(new Store(trx)));
  }

  /** One cheap round trip; /ready uses it. */
  async ping(): Promise<void> {
    await this.db.raw('select 1');
  }
}
