import type { Knex } from 'knex';
import { ApiKeysRepository } from './repositories/api-keys.js';
import { OrganisationsRepository } from './repositories/organisations.js';
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

  constructor(readonly db: Knex | Knex.Transaction) {
    this.organisations = new OrganisationsRepository(db);
    this.workspaces = new WorkspacesRepository(db);
    this.users = new UsersRepository(db);
    this.apiKeys = new ApiKeysRepository(db);
  }

  transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.db.transaction((trx) => work(new Store(trx)));
  }

  /** One cheap round trip; /ready uses it. */
  async ping(): Promise<void> {
    await this.db.raw('select 1');
  }
}
