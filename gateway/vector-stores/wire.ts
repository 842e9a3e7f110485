import { unixSeconds } from '../assistants/object-ids.js';
import type { FileCounts, VectorStoreBatchRecord, VectorStoreFileRecord, VectorStoreRecord } from '../../store/repositories/vector-stores.js';

const DAY_MS = 86_400_000;

/** When the store expires (epoch ms), or null when it has no expires_after. */
export function expiresAtMs(store: VectorStoreRecord): number | null {
  return store.expires_after ? store.last_active_at + store.expires_after.days * DAY_MS : null;
}

/** OpenAI's vector_store object; status from the files' counts and the expiry. */
export function vectorStoreObject(store: VectorStoreRecord, counts: FileCounts, usageBytes: number, now: number) {
  const expiresAt = expiresAtMs(store);
  return {
    id: store.id,
    object: 'vector_store' as const,
    created_at: unixSeconds(store.created_at),
    name: store.name,
    usage_bytes: usageBytes,
    file_counts: counts,
    status: expiresAt !== null && now >= expiresAt ? ('expired' as const) : counts.in_progress > 0 ? ('in_progress' as const) : ('completed' as const),
    ...(store.expires_after ? { expires_after: store.expires_after } : {}),
    expires_at: expiresAt === null ? null : unixSeconds(expiresAt),
    last_active_at: unixSeconds(store.last_active_at),
    metadata: store.metadata,
  };
}

export function vectorStoreFileObject(file: VectorStoreFileRecord) {
  return {
    id: file.id,
    object: 'vector_store.file' as const,
    usage_bytes: file.usage_bytes,
    created_at: unixSeconds(file.created_at),
    vector_store_id: file.vector_store_id,
    status: file.status,
    last_error: file.last_error,
    chunking_strategy: { type: 'static' as const, static: file.chunking },
    attributes: file.attributes,
  };
}

export function fileBatchObject(batch: VectorStoreBatchRecord, counts: FileCounts) {
  return {
    id: batch.id,
    object: 'vector_store.files_batch' as const,
    created_at: unixSeconds(batch.created_at),
    vector_store_id: batch.vector_store_id,
    status: batch.cancelled ? ('cancelled' as const) : counts.in_progress > 0 ? ('in_progress' as const) : counts.failed > 0 && counts.completed === 0 ? ('failed' as const) : ('completed' as const),
    file_counts: counts,
  };
}
