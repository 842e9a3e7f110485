import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';

/** One stored response (migration 255): the wire object, its own input items, the conversation so far. */
export interface StoredResponse<Body, Item, Message> {
  id: string;
  organisation_id: string;
  workspace_id: string;
  /** Epoch milliseconds. */
  created_at: number;
  body: Body;
  input_items: Item[];
  history: Message[];
}

/** Stored responses of the Responses API; every read and delete is scoped by workspace. */
export class ResponsesRepository<Body, Item, Message> {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async insert(record: StoredResponse<Body, Item, Message>): Promise<void> {
    await this.db('responses').insert({ ...record, body: toJson(record.body), input_items: toJson(record.input_items), history: toJson(record.history) });
  }

  async get(workspaceId: string, id: string): Promise<StoredResponse<Body, Item, Message> | undefined> {
    const row = await this.db('responses').where({ id, workspace_id: workspaceId }).first();
    if (!row) return undefined;
    return {
      ...(row as StoredResponse<Body, Item, Message>),
      created_at: Number(row.created_at),
      body: fromJson<Body>(row.body, {} as Body),
      input_items: fromJson<Item[]>(row.input_items, []),
      history: fromJson<Message[]>(row.history, []),
    };
  }

  /** Deletes up to `limit` responses created before `cutoff` (epoch ms); answers how many went. */
  async deleteOlderThan(cutoff: number, limit: number): Promise<number> {
    return this.db('responses').whereIn('id', this.db('responses').where('created_at', '<', cutoff).select('id').limit(limit)).delete();
  }

  /** True when a row was deleted. */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    return (await this.db('responses').where({ id, workspace_id: workspaceId }).delete()) > 0;
  }
}
