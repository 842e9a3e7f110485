/**
 * The vector-stores room: stores, their files and batches, ingestion as jobs of the worker room
 * (read the file, chunk it, embed the chunks through gw's own embeddings path, keep chunks and
 * vectors in the store), and search (embed the query, rank the store's chunks by cosine).
 */
import type { JobQueue } from '../../jobs/job-queue.js';
import { ApiError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { Services } from '../../core/services.js';
import type { Chunking, VectorStoreFileRecord, VectorStoreRecord, VectorStoresRepository } from '../../store/repositories/vector-stores.js';
import { nextPosition } from '../../store/repositories/assistant-objects.js';
import { newObjectId } from '../assistants/object-ids.js';
import type { Owner } from '../assistants/thread-writer.js';
import type { StoredPrincipal } from '../batches/line-call.js';
import { chunkText } from './chunking.js';
import { embedTexts } from './embedding-model.js';
import { matchesFilter, type AttributeFilter } from './attribute-filter.js';
import { expiresAtMs, fileBatchObject, vectorStoreObject } from './wire.js';

export const INGEST_JOB = 'vector_stores.ingest';

type Attributes = VectorStoreFileRecord['attributes'];

export interface SearchRequest {
  queries: string[];
  maxResults: number;
  filters?: AttributeFilter;
  scoreThreshold?: number;
}

export interface SearchHit {
  file_id: string;
  filename: string;
  score: number;
  attributes: Attributes;
  text: string;
}

export class VectorStores {
  constructor(
    private readonly services: Services,
    readonly repository: VectorStoresRepository,
    private readonly jobs: JobQueue,
  ) {}

  async visible(workspaceId: string, id: string): Promise<VectorStoreRecord> {
    const store = await this.repository.get(workspaceId, id);
    if (!store) throw new NotFoundError('Vector store', id);
    return store;
  }

  async view(store: VectorStoreRecord) {
    return vectorStoreObject(store, await this.repository.fileCounts(store.id), await this.repository.usageBytes(store.id), this.services.now());
  }

  async batchView(vectorStoreId: string, batchId: string) {
    const batch = await this.repository.getBatch(vectorStoreId, batchId);
    if (!batch) throw new NotFoundError('File batch', batchId);
    return fileBatchObject(batch, await this.repository.fileCounts(vectorStoreId, batchId));
  }

  async create(owner: Owner, principal: StoredPrincipal, input: { name?: string | null; metadata?: Record<string, string> | null; expires_after?: VectorStoreRecord['expires_after'] }, embeddingModel: string): Promise<VectorStoreRecord> {
    const now = this.services.now();
    const store: VectorStoreRecord = {
      id: newObjectId('vs'),
      organisation_id: owner.organisationId,
      workspace_id: owner.workspaceId,
      position: nextPosition(now),
      name: input.name ?? null,
      metadata: input.metadata ?? {},
      expires_after: input.expires_after ?? null,
      embedding_model: embeddingModel,
      principal,
      created_at: now,
      last_active_at: now,
    };
    await this.repository.insert(store);
    return store;
  }

  /** Checks every file first (404 naming the first unknown one), then attaches them all and queues their ingestion. */
  async attach(store: VectorStoreRecord, fileIds: string[], chunking: Chunking, attributes: Attributes, batchId: string | null = null): Promise<void> {
    const bytes = new Map<string, number>();
    for (const id of fileIds) bytes.set(id, (await this.services.files.get(store.workspace_id, id)).bytes);
    for (const [id] of bytes) {
      const now = this.services.now();
      await this.repository.upsertFile({ vector_store_id: store.id, id, workspace_id: store.workspace_id, position: nextPosition(now), batch_id: batchId, status: 'in_progress', last_error: null, chunking, attributes, usage_bytes: 0, created_at: now });
      await this.jobs.enqueue(INGEST_JOB, { vectorStoreId: store.id, fileId: id }, { singletonKey: `${store.id}:${id}` });
    }
  }

  async createBatch(store: VectorStoreRecord, fileIds: string[], chunking: Chunking, attributes: Attributes) {
    const batch = { id: newObjectId('vsfb'), vector_store_id: store.id, workspace_id: store.workspace_id, cancelled: false, created_at: this.services.now() };
    // The batch row first: its files point at it, and a reader of the batch must find it.
    await this.repository.insertBatch(batch);
    await this.attach(store, fileIds, chunking, attributes, batch.id);
    return this.batchView(store.id, batch.id);
  }

  /** At start: files whose ingestion was cut short get a job again (one waits at a time). */
  async resumeAll(): Promise<void> {
    for (const file of await this.repository.pendingFiles()) await this.jobs.enqueue(INGEST_JOB, { vectorStoreId: file.vector_store_id, fileId: file.id }, { singletonKey: `${file.vector_store_id}:${file.id}` });
  }

  /** The job: chunks and embeds one file; the outcome is the file's status (completed, or failed with last_error). */
  async ingest(vectorStoreId: string, fileId: string): Promise<void> {
    const store = await this.repository.getById(vectorStoreId);
    const file = store && (await this.repository.getFile(vectorStoreId, fileId));
    if (!store || !file || file.status !== 'in_progress') return;
    try {
      const text = await this.readText(store.workspace_id, fileId);
      const chunks = chunkText(text, file.chunking);
      if (chunks.length === 0) throw new IngestFailure('invalid_file', 'the file has no text');
      const vectors = await embedTexts(this.services, store.principal as StoredPrincipal, store.embedding_model, chunks);
      await this.repository.replaceChunks(vectorStoreId, fileId, chunks.map((chunk, index) => ({ text: chunk, vector: vectors[index]! })));
      await this.repository.finishFile(vectorStoreId, fileId, { status: 'completed', last_error: null, usage_bytes: Buffer.byteLength(text) });
    } catch (error) {
      const lastError = error instanceof IngestFailure ? { code: error.code, message: error.message } : { code: 'server_error' as const, message: error instanceof Error ? error.message : String(error) };
      await this.repository.finishFile(vectorStoreId, fileId, { status: 'failed', last_error: lastError, usage_bytes: 0 });
    }
  }

  private async readText(workspaceId: string, fileId: string): Promise<string> {
    const parts: Buffer[] = [];
    try {
      for await (const part of this.services.files.read(workspaceId, fileId)) parts.push(part);
    } catch (error) {
      if (error instanceof NotFoundError) throw new IngestFailure('invalid_file', `file ${fileId} was deleted`);
      throw error;
    }
    const content = Buffer.concat(parts);
    if (content.includes(0)) throw new IngestFailure('unsupported_file', 'only text files can be searched (the file has binary content)');
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(content);
    } catch {
      throw new IngestFailure('unsupported_file', 'only UTF-8 text files can be searched');
    }
  }

  /** The best chunks of the store for the queries (a chunk scores its best cosine over the queries), best first. */
  async search(store: VectorStoreRecord, principal: StoredPrincipal, request: SearchRequest): Promise<SearchHit[]> {
    const expiresAt = expiresAtMs(store);
    if (expiresAt !== null && this.services.now() >= expiresAt) {
      throw new ValidationError(`vector store ${store.id} has expired`, 'vector_store_id', 'vector_store_expired');
    }
    const queries = await embedTexts(this.services, principal, store.embedding_model, request.queries);
    const files = new Map((await this.repository.allFiles(store.id)).map((file) => [file.id, file]));
    const ranked: Array<{ file_id: string; text: string; score: number }> = [];
    for (const chunk of await this.repository.chunks(store.id)) {
      if (request.filters && !matchesFilter(request.filters, files.get(chunk.file_id)?.attributes ?? null)) continue;
      const score = Math.max(0, ...queries.map((query) => dot(query, chunk.vector)));
      if (score >= (request.scoreThreshold ?? 0)) ranked.push({ file_id: chunk.file_id, text: chunk.text, score: Math.min(1, score) });
    }
    ranked.sort((a, b) => b.score - a.score);
    await this.repository.update(store.id, { last_active_at: this.services.now() });
    const names = new Map<string, string>();
    const hits: SearchHit[] = [];
    for (const hit of ranked.slice(0, request.maxResults)) {
      if (!names.has(hit.file_id)) names.set(hit.file_id, await this.filename(store.workspace_id, hit.file_id));
      hits.push({ ...hit, filename: names.get(hit.file_id)!, attributes: files.get(hit.file_id)?.attributes ?? null });
    }
    return hits;
  }

  private async filename(workspaceId: string, fileId: string): Promise<string> {
    try {
      return (await this.services.files.get(workspaceId, fileId)).filename;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return fileId;
      throw error;
    }
  }

}

class IngestFailure extends Error {
  constructor(
    readonly code: 'invalid_file' | 'unsupported_file',
    message: string,
  ) {
    super(message);
  }
}

function dot(a: number[], b: number[]): number {
  let sum = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) sum += a[i]! * b[i]!;
  return sum;
}
