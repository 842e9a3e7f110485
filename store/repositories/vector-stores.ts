import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { listByPosition, type ListRequest, type ObjectList } from './assistant-objects.js';

export type VectorStoreFileStatus = 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface Chunking {
  max_chunk_size_tokens: number;
  chunk_overlap_tokens: number;
}

export interface VectorStoreRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  position: number;
  name: string | null;
  metadata: Record<string, string>;
  expires_after: { anchor: 'last_active_at'; days: number } | null;
  /** `@slug/model`: what embeds this store's chunks and its queries. */
  embedding_model: string;
  /** The creator's principal (JSON): ingestion embeds as that caller. */
  principal: unknown;
  /** Epoch milliseconds. */
  created_at: number;
  last_active_at: number;
}

export interface VectorStoreFileRecord {
  vector_store_id: string;
  id: string;
  workspace_id: string;
  position: number;
  batch_id: string | null;
  status: VectorStoreFileStatus;
  last_error: { code: 'server_error' | 'unsupported_file' | 'invalid_file'; message: string } | null;
  chunking: Chunking;
  attributes: Record<string, string | number | boolean> | null;
  usage_bytes: number;
  created_at: number;
}

export interface VectorStoreBatchRecord {
  id: string;
  vector_store_id: string;
  workspace_id: string;
  cancelled: boolean;
  created_at: number;
}

export interface StoredChunk {
  file_id: string;
  seq: number;
  text: string;
  vector: number[];
}

export type FileCounts = Record<VectorStoreFileStatus | 'total', number>;

const storeOf = (row: Record<string, unknown>): VectorStoreRecord => ({
  ...(row as unknown as VectorStoreRecord),
  position: Number(row.position),
  metadata: fromJson(row.metadata, {}),
  expires_after: fromJson(row.expires_after, null),
  principal: fromJson(row.principal, null),
  created_at: Number(row.created_at),
  last_active_at: Number(row.last_active_at),
});

const fileOf = (row: Record<string, unknown>): VectorStoreFileRecord => ({
  ...(row as unknown as VectorStoreFileRecord),
  position: Number(row.position),
  last_error: fromJson(row.last_error, null),
  chunking: fromJson(row.chunking, { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 }),
  attributes: fromJson(row.attributes, null),
  usage_bytes: Number(row.usage_bytes),
  created_at: Number(row.created_at),
});

/** Vector stores, their files and batches, and the chunks with their vectors (migration 290). */
export class VectorStoresRepository {
  constructor(private readonly db: Knex) {}

  async insert(record: VectorStoreRecord): Promise<void> {
    await this.db('vector_stores').insert({ ...record, metadata: toJson(record.metadata), expires_after: toJson(record.expires_after), principal: toJson(record.principal) });
  }

  async get(workspaceId: string, id: string): Promise<VectorStoreRecord | undefined> {
    const row = await this.db('vector_stores').where({ workspace_id: workspaceId, id }).first();
    return row ? storeOf(row) : undefined;
  }

  async getById(id: string): Promise<VectorStoreRecord | undefined> {
    const row = await this.db('vector_stores').where({ id }).first();
    return row ? storeOf(row) : undefined;
  }

  list(workspaceId: string, request: ListRequest): Promise<ObjectList<VectorStoreRecord>> {
    return listByPosition(() => this.db('vector_stores').where('workspace_id', workspaceId), request, storeOf);
  }

  async update(id: string, patch: Partial<Pick<VectorStoreRecord, 'name' | 'metadata' | 'expires_after' | 'last_active_at'>>): Promise<void> {
    const row: Record<string, unknown> = { ...patch };
    if ('metadata' in patch) row.metadata = toJson(patch.metadata);
    if ('expires_after' in patch) row.expires_after = toJson(patch.expires_after);
    await this.db('vector_stores').where({ id }).update(row);
  }

  /** The store, its file links, batches and chunks (the files themselves stay in /v1/files). */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const removed = await trx('vector_stores').where({ workspace_id: workspaceId, id }).del();
      if (removed === 0) return false;
      for (const table of ['vector_store_chunks', 'vector_store_files', 'vector_store_file_batches']) await trx(table).where('vector_store_id', id).del();
      return true;
    });
  }

  /** Counts by status, of a store's files or of one batch's. */
  async fileCounts(vectorStoreId: string, batchId?: string): Promise<FileCounts> {
    const query = this.db('vector_store_files').where('vector_store_id', vectorStoreId);
    if (batchId !== undefined) query.andWhere('batch_id', batchId);
    const rows = (await query.select('status').count({ count: '*' }).groupBy('status')) as Array<{ status: VectorStoreFileStatus; count: number | string }>;
    const counts: FileCounts = { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 };
    for (const row of rows) {
      counts[row.status] = Number(row.count);
      counts.total += Number(row.count);
    }
    return counts;
  }

  async usageBytes(vectorStoreId: string): Promise<number> {
    const row = (await this.db('vector_store_files').where({ vector_store_id: vectorStoreId, status: 'completed' }).sum({ bytes: 'usage_bytes' }).first()) as { bytes: number | string | null } | undefined;
    return Number(row?.bytes ?? 0);
  }

  /** Attaches a file (a file attached again is ingested again, with the new settings). */
  async upsertFile(record: VectorStoreFileRecord): Promise<void> {
    await this.db('vector_store_files')
      .insert({ ...record, last_error: toJson(record.last_error), chunking: toJson(record.chunking), attributes: toJson(record.attributes) })
      .onConflict(['vector_store_id', 'id'])
      .merge(['batch_id', 'status', 'last_error', 'chunking', 'attributes', 'usage_bytes']);
  }

  async getFile(vectorStoreId: string, fileId: string): Promise<VectorStoreFileRecord | undefined> {
    const row = await this.db('vector_store_files').where({ vector_store_id: vectorStoreId, id: fileId }).first();
    return row ? fileOf(row) : undefined;
  }

  listFiles(vectorStoreId: string, request: ListRequest, filter: Record<string, string>): Promise<ObjectList<VectorStoreFileRecord>> {
    return listByPosition(() => this.db('vector_store_files').where('vector_store_id', vectorStoreId), request, fileOf, filter);
  }

  /** Every file of the store: the names and attributes search results carry. */
  async allFiles(vectorStoreId: string): Promise<VectorStoreFileRecord[]> {
    return ((await this.db('vector_store_files').where('vector_store_id', vectorStoreId)) as Record<string, unknown>[]).map(fileOf);
  }

  /** Ends an ingestion; only a file still in_progress moves (a cancel or a delete wins). */
  async finishFile(vectorStoreId: string, fileId: string, outcome: Pick<VectorStoreFileRecord, 'status' | 'last_error' | 'usage_bytes'>): Promise<boolean> {
    const updated = await this.db('vector_store_files')
      .where({ vector_store_id: vectorStoreId, id: fileId, status: 'in_progress' })
      .update({ status: outcome.status, last_error: toJson(outcome.last_error), usage_bytes: outcome.usage_bytes });
    return updated > 0;
  }

  async deleteFile(vectorStoreId: string, fileId: string): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      await trx('vector_store_chunks').where({ vector_store_id: vectorStoreId, file_id: fileId }).del();
      return (await trx('vector_store_files').where({ vector_store_id: vectorStoreId, id: fileId }).del()) > 0;
    });
  }

  /** A deleted file leaves every store of its workspace: its content must stop answering searches. */
  async forgetFile(workspaceId: string, fileId: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const storeIds = (await trx('vector_store_files').where({ workspace_id: workspaceId, id: fileId }).pluck('vector_store_id')) as string[];
      if (storeIds.length === 0) return;
      await trx('vector_store_chunks').whereIn('vector_store_id', storeIds).andWhere('file_id', fileId).del();
      await trx('vector_store_files').whereIn('vector_store_id', storeIds).andWhere('id', fileId).del();
    });
  }

  /** Files of a store still waiting for ingestion (resumed at start). */
  async pendingFiles(): Promise<Array<{ vector_store_id: string; id: string }>> {
    return this.db('vector_store_files').where('status', 'in_progress').select('vector_store_id', 'id');
  }

  async insertBatch(record: VectorStoreBatchRecord): Promise<void> {
    await this.db('vector_store_file_batches').insert(record);
  }

  async getBatch(vectorStoreId: string, id: string): Promise<VectorStoreBatchRecord | undefined> {
    const row = await this.db('vector_store_file_batches').where({ vector_store_id: vectorStoreId, id }).first();
    return row ? { ...(row as VectorStoreBatchRecord), cancelled: Boolean(row.cancelled), created_at: Number(row.created_at) } : undefined;
  }

  /** Marks the batch cancelled and its files not yet ingested cancelled. */
  async cancelBatch(vectorStoreId: string, id: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('vector_store_file_batches').where({ vector_store_id: vectorStoreId, id }).update({ cancelled: true });
      await trx('vector_store_files').where({ vector_store_id: vectorStoreId, batch_id: id, status: 'in_progress' }).update({ status: 'cancelled' });
    });
  }

  /** A file's chunks replaced at once, so a re-run ingestion never leaves a mix; none are kept for a file removed meanwhile. */
  async replaceChunks(vectorStoreId: string, fileId: string, chunks: Array<{ text: string; vector: number[] }>): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('vector_store_chunks').where({ vector_store_id: vectorStoreId, file_id: fileId }).del();
      if (!(await trx('vector_store_files').where({ vector_store_id: vectorStoreId, id: fileId, status: 'in_progress' }).first())) return;
      for (let start = 0; start < chunks.length; start += 100) {
        const rows = chunks.slice(start, start + 100).map((chunk, offset) => ({ vector_store_id: vectorStoreId, file_id: fileId, seq: start + offset, text: chunk.text, vector: JSON.stringify(chunk.vector) }));
        await trx('vector_store_chunks').insert(rows);
      }
    });
  }

  /** The chunks of the store's completed files. */
  async chunks(vectorStoreId: string): Promise<StoredChunk[]> {
    const rows = (await this.db('vector_store_chunks as c')
      .join('vector_store_files as f', function () {
        this.on('f.vector_store_id', '=', 'c.vector_store_id').andOn('f.id', '=', 'c.file_id');
      })
      .where({ 'c.vector_store_id': vectorStoreId, 'f.status': 'completed' })
      .select('c.file_id', 'c.seq', 'c.text', 'c.vector')) as Array<{ file_id: string; seq: number; text: string; vector: string }>;
    return rows.map((row) => ({ file_id: row.file_id, seq: Number(row.seq), text: row.text, vector: JSON.parse(row.vector) as number[] }));
  }
}
