import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export interface SemanticCacheEntry {
  id: string;
  scope: string;
  organisation_id: string;
  vector: number[];
  /** The cached answer, JSON text as stored. */
  response: string;
  created_at: string;
  expires_at: string;
}

type Row = Omit<SemanticCacheEntry, 'vector'> & { vector: string };

const toEntry = (row: Row): SemanticCacheEntry => ({ ...row, vector: JSON.parse(row.vector) as number[] });

export class SemanticCacheEntriesRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async create(input: Omit<SemanticCacheEntry, 'id' | 'created_at'>, now: string): Promise<SemanticCacheEntry> {
    const entry: SemanticCacheEntry = { ...input, id: randomUUID(), created_at: now };
    await this.db('semantic_cache_entries').insert({ ...entry, vector: JSON.stringify(entry.vector) });
    return entry;
  }

  async get(id: string): Promise<SemanticCacheEntry | undefined> {
    const row = await this.db('semantic_cache_entries').where({ id }).first();
    return row ? toEntry(row) : undefined;
  }

  /** Live entries of one scope, oldest first. */
  async liveInScope(scope: string, now: string): Promise<SemanticCacheEntry[]> {
    const rows: Row[] = await this.db('semantic_cache_entries').where({ scope }).andWhere('expires_at', '>', now).orderBy('created_at');
    return rows.map(toEntry);
  }

  /** Deletes expired entries; returns how many. */
  async deleteExpired(now: string): Promise<number> {
    return this.db('semantic_cache_entries').where('expires_at', '<=', now).delete();
  }
}
