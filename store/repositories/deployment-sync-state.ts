import type { Knex } from 'knex';

/** A data plane's sync bookkeeping (applied snapshot version, log shipping cursor), by name. */
export class DeploymentSyncStateRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async get(name: string): Promise<string | undefined> {
    const row = (await this.db('deployment_sync_state').where({ name }).first('value')) as { value: string } | undefined;
    return row?.value;
  }

  async set(name: string, value: string, now: string): Promise<void> {
    await this.db('deployment_sync_state').insert({ name, value, updated_at: now }).onConflict('name').merge(['value', 'updated_at']);
  }
}
