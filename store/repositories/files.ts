import type { Knex } from 'knex';
import { afterKeyset } from '../pagination.js';

export interface FileRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  purpose: string;
  filename: string;
  bytes: number;
  status: 'uploaded' | 'processed' | 'error';
  /** Epoch milliseconds (the list order); OpenAI's file object shows it in seconds. */
  created_at: number;
  expires_at: number | null;
}

export interface FileListRequest {
  workspaceId: string;
  purpose?: string;
  limit: number;
  order: 'asc' | 'desc';
  /** The id of the last file of the previous page. */
  after?: string;
}

const toRecord = (row: Record<string, unknown>): FileRecord => ({
  ...(row as unknown as FileRecord),
  bytes: Number(row.bytes),
  created_at: Number(row.created_at),
  expires_at: row.expires_at === null || row.expires_at === undefined ? null : Number(row.expires_at),
});

/** File metadata and chunked content (migration 206). */
export class FilesRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async appendChunk(fileId: string, seq: number, data: Buffer): Promise<void> {
    await this.db('file_chunks').insert({ file_id: fileId, seq, data });
  }

  async insert(record: FileRecord): Promise<FileRecord> {
    await this.db('files').insert(record);
    return record;
  }

  async setPurpose(workspaceId: string, id: string, purpose: string): Promise<void> {
    await this.db('files').where({ id, workspace_id: workspaceId }).update({ purpose });
  }

  async get(workspaceId: string, id: string): Promise<FileRecord | undefined> {
    const row = await this.db('files').where({ id, workspace_id: workspaceId }).first();
    return row ? toRecord(row) : undefined;
  }

  /** Keyset pages over (created_at, id) in either order; one more row than asked tells has_more. */
  async list(request: FileListRequest): Promise<{ data: FileRecord[]; hasMore: boolean }> {
    const query = this.db('files').where('workspace_id', request.workspaceId);
    if (request.purpose) query.andWhere('purpose', request.purpose);
    if (request.after) {
      const anchor = await this.db('files').where({ id: request.after, workspace_id: request.workspaceId }).first('created_at', 'id');
      if (anchor) {
        const op = request.order === 'desc' ? '<' : '>';
        afterKeyset(query, op, 'created_at', anchor.created_at, 'id', anchor.id);
      }
    }
    const rows: Array<Record<string, unknown>> = await query.orderBy('created_at', request.order).orderBy('id', request.order).limit(request.limit + 1);
    return { data: rows.slice(0, request.limit).map(toRecord), hasMore: rows.length > request.limit };
  }

  /** Chunks from `fromSeq`, a few at a time, so a reader streams without loading the file. */
  async chunks(fileId: string, fromSeq: number, count: number): Promise<Array<{ seq: number; data: Buffer }>> {
    const rows: Array<{ seq: number; data: Buffer | Uint8Array }> = await this.db('file_chunks')
      .where('file_id', fileId)
      .andWhere('seq', '>=', fromSeq)
      .orderBy('seq')
      .limit(count)
      .select('seq', 'data');
    return rows.map((row) => ({ seq: Number(row.seq), data: Buffer.isBuffer(row.data) ? row.data : Buffer.from(row.data) }));
  }

  async deleteContent(fileId: string): Promise<void> {
    await this.db('file_chunks').where('file_id', fileId).delete();
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const deleted = await this.db('files').where({ id, workspace_id: workspaceId }).delete();
    if (deleted > 0) await this.deleteContent(id);
    return deleted > 0;
  }
}
