import type { BatchRecord } from '../../store/repositories/batches.js';

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** OpenAI's batch object (times in Unix seconds), with gw's internal_output_file_id. */
export function batchObject(batch: BatchRecord) {
  return {
    id: batch.id,
    object: 'batch' as const,
    endpoint: batch.endpoint,
    errors: batch.errors ? { object: 'list' as const, data: batch.errors } : null,
    input_file_id: batch.input_file_id,
    completion_window: batch.completion_window,
    status: batch.status,
    output_file_id: batch.output_file_id,
    error_file_id: batch.error_file_id,
    internal_output_file_id: batch.internal_output_file_id,
    batch_mode: batch.batch_mode,
    provider_batch_id: batch.provider_batch_id,
    created_at: seconds(batch.created_at)!,
    in_progress_at: seconds(batch.in_progress_at),
    expires_at: seconds(batch.expires_at),
    finalizing_at: seconds(batch.finalizing_at),
    completed_at: seconds(batch.completed_at),
    failed_at: seconds(batch.failed_at),
    expired_at: seconds(batch.expired_at),
    cancelling_at: seconds(batch.cancelling_at),
    cancelled_at: seconds(batch.cancelled_at),
    request_counts: { total: batch.total, completed: batch.completed, failed: batch.failed },
    metadata: batch.metadata,
  };
}
