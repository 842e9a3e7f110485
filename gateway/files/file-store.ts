import { randomBytes } from 'node:crypto';
import type { FileRecord, FilesRepository, FileListRequest } from '../../store/repositories/files.js';
import { ApiError, NotFoundError } from '../../core/errors.js';

/** Content is stored in pieces of this size (the last one shorter). */
export const CHUNK_BYTES = 1024 * 1024;

export interface NewFile {
  organisationId: string;
  workspaceId: string;
  purpose: string;
  filename: string;
}

export function newFileId(): string {
  return `file-${randomBytes(12).toString('hex')}`;
}

export function fileTooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'file_too_large', `The file is larger than the ${maxBytes}-byte limit (GW_FILES_MAX_BYTES)`, 'invalid_request_error', {
    param: 'file',
    headers: { connection: 'close' },
  });
}

/**
 * The files room's read and write API: uploads from `/v1/files`, batch output written by the
 * batch runner, and reads by any room (batches read their input here; assistants' file search will).
 * Content goes to the store chunk by chunk; the file's row appears only once all of it is stored.
 */
export class FileStore {
  constructor(
    private readonly files: FilesRepository,
    readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Stores a file from any byte source; over maxBytes the partial content is removed and 413 thrown. */
  async write(file: NewFile, content: AsyncIterable<Buffer | Uint8Array | string>, maxBytes = this.maxBytes): Promise<FileRecord> {
    const id = newFileId();
    let seq = 0;
    let bytes = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (all: boolean) => {
      while (pendingBytes >= CHUNK_BYTES || (all && pendingBytes > 0)) {
        const joined = Buffer.concat(pending, pendingBytes);
        const piece = joined.subarray(0, Math.min(CHUNK_BYTES, joined.length));
        const rest = joined.subarray(piece.length);
        await this.files.appendChunk(id, seq, Buffer.from(piece));
        seq += 1;
        pending = rest.length > 0 ? [rest] : [];
        pendingBytes = rest.length;
      }
    };
    try {
      for await (const part of content) {
        const buffer = typeof part === 'string' ? Buffer.from(part) : Buffer.isBuffer(part) ? part : Buffer.from(part);
        bytes += buffer.length;
        if (bytes > maxBytes) throw fileTooLarge(maxBytes);
        pending.push(buffer);
        pendingBytes += buffer.length;
        await flush(false);
      }
      await flush(true);
      return await this.files.insert({
        id,
        organisation_id: file.organisationId,
        workspace_id: file.workspaceId,
        purpose: file.purpose,
        filename: file.filename,
        bytes,
        status: 'processed',
        created_at: this.now(),
        expires_at: null,
      });
    } catch (error) {
      await this.files.deleteContent(id).catch(() => undefined);
      throw error;
    }
  }

  async get(workspaceId: string, id: string): Promise<FileRecord> {
    const file = await this.files.get(workspaceId, id);
    if (!file) throw new NotFoundError('File', id);
    return file;
  }

  list(request: FileListRequest): Promise<{ data: FileRecord[]; hasMore: boolean }> {
    return this.files.list(request);
  }

  async setPurpose(workspaceId: string, id: string, purpose: string): Promise<FileRecord> {
    await this.files.setPurpose(workspaceId, id, purpose);
    return this.get(workspaceId, id);
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    if (!(await this.files.delete(workspaceId, id))) throw new NotFoundError('File', id);
  }

  /** The content in order, a few chunks per query. */
  async *read(workspaceId: string, id: string): AsyncGenerator<Buffer> {
    await this.get(workspaceId, id);
    let next = 0;
    for (;;) {
      const chunks = await this.files.chunks(id, next, 4);
      for (const chunk of chunks) yield chunk.data;
      if (chunks.length < 4) return;
      next = chunks[chunks.length - 1]!.seq + 1;
    }
  }

  /** The content split into lines (UTF-8, `\n` or `\r\n`), without holding the file: for JSONL readers. */
  async *lines(workspaceId: string, id: string): AsyncGenerator<string> {
    const decoder = new TextDecoder();
    let carry = '';
    for await (const chunk of this.read(workspaceId, id)) {
      carry += decoder.decode(chunk, { stream: true });
      const parts = carry.split('\n');
      carry = parts.pop() ?? '';
      for (const part of parts) yield part.endsWith('\r') ? part.slice(0, -1) : part;
    }
    carry += decoder.decode();
    if (carry.length > 0) yield carry.endsWith('\r') ? carry.slice(0, -1) : carry;
  }
}
