/**
 * A batch handed to the provider's own batch API, as a job of the worker room: upload the input
 * file, create the provider's batch, then poll it (waiting longer while nothing changes), mirroring
 * its status, request counts and errors into gw's batch; when it ends, copy its output and error
 * files into gw files. Each step is written to the batch's row before the next, so a job cut short
 * anywhere resumes where it was: the provider batch id is stored the moment the provider answers,
 * and a restart polls that batch rather than creating another.
 */
import { ApiError } from '../../core/errors.js';
import type { Services } from '../../core/services.js';
import { UNFINISHED_BATCH_STATUSES, type BatchesRepository, type BatchRecord, type BatchStatus } from '../../store/repositories/batches.js';
import { ProviderBatchApi, ProviderCallError } from './provider-batch-api.js';

type Remote = Record<string, unknown>;

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'expired', 'cancelled']);
/** Provider states that a cancel still changes. */
const CANCELLABLE: ReadonlySet<string> = new Set(['validating', 'in_progress', 'finalizing']);
/** gw states a mirrored running status may replace (a cancel asked in gw stays `cancelling`). */
const RUNNING_FROM: readonly BatchStatus[] = ['validating', 'in_progress', 'finalizing'];
const TIME_FIELDS = ['in_progress_at', 'finalizing_at', 'cancelling_at'] as const;
const ENDED_AT = { completed: 'completed_at', failed: 'failed_at', expired: 'expired_at', cancelled: 'cancelled_at' } as const;

export interface NativePollOptions {
  minMs: number;
  maxMs: number;
}

/** Schedules the batch's next job `delayMs` from now, to poll after waiting `pollMs`. */
export type Reschedule = (batchId: string, delayMs: number, pollMs: number) => Promise<void>;

function countsOf(remote: Remote): { total: number; completed: number; failed: number } | undefined {
  const counts = remote.request_counts as Record<string, unknown> | undefined;
  if (!counts || typeof counts !== 'object') return undefined;
  const n = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return { total: n(counts.total), completed: n(counts.completed), failed: n(counts.failed) };
}

function errorsOf(remote: Remote): BatchRecord['errors'] | undefined {
  const data = (remote.errors as { data?: unknown } | null | undefined)?.data;
  if (!Array.isArray(data) || data.length === 0) return undefined;
  return data.map((item: Record<string, unknown>) => ({
    code: typeof item.code === 'string' ? item.code : 'provider_error',
    message: typeof item.message === 'string' ? item.message : 'The provider reported an error',
    param: typeof item.param === 'string' ? item.param : null,
    line: typeof item.line === 'number' ? item.line : null,
  }));
}

/** A provider time (Unix seconds) in gw's epoch milliseconds. */
function msOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value * 1000 : undefined;
}

export class NativeBatchRunner {
  readonly api: ProviderBatchApi;

  constructor(
    private readonly services: Services,
    private readonly batches: BatchesRepository,
    private readonly reschedule: Reschedule,
    private readonly poll: NativePollOptions,
    transferMs: number,
  ) {
    this.api = new ProviderBatchApi(services, { callMs: services.config.requestTimeoutMs, transferMs });
  }

  async run(batch: BatchRecord, pollMs = this.poll.minMs): Promise<void> {
    try {
      if (!batch.provider_batch_id) {
        const created = await this.handOver(batch);
        if (!created) return;
        batch = created;
      }
      const remote = await this.api.json(batch, 'GET', `/batches/${encodeURIComponent(batch.provider_batch_id!)}`);
      const changed = await this.mirror(batch, remote);
      const current = (await this.batches.getById(batch.id))!;
      const remoteStatus = String(remote.status);
      if (current.status === 'cancelling' && CANCELLABLE.has(remoteStatus)) {
        // The cancel request may have reached the provider between this poll's read and now: a refusal here is not the batch's failure.
        await this.forwardCancel(current).catch((error: unknown) => {
          if (!(error instanceof ProviderCallError)) throw error;
          this.services.logger.warn({ batch: batch.id, err: error.message }, 'native batch: cancel not forwarded; the next poll tries again');
        });
      }
      if (TERMINAL.has(remoteStatus)) {
        await this.finish(current, remote, remoteStatus as keyof typeof ENDED_AT);
        return;
      }
      const next = changed ? this.poll.minMs : Math.min(pollMs * 2, this.poll.maxMs);
      await this.reschedule(batch.id, next, next);
    } catch (error) {
      await this.failedStep(batch, error, pollMs);
    }
  }

  /** Sends the cancel to the provider (gw's batch is already `cancelling`); polling mirrors the outcome. */
  async forwardCancel(batch: BatchRecord): Promise<void> {
    if (!batch.provider_batch_id) return;
    await this.api.json(batch, 'POST', `/batches/${encodeURIComponent(batch.provider_batch_id)}/cancel`);
  }

  /** Uploads the input and creates the provider batch, recording each id as soon as it is known. Undefined when the batch ended instead. */
  private async handOver(batch: BatchRecord): Promise<BatchRecord | undefined> {
    if (batch.status === 'cancelling') {
      // Cancelled before the provider saw it: nothing ran, there are no files.
      await this.batches.update(batch.id, { status: 'cancelled', cancelled_at: this.services.now() }, ['cancelling']);
      return undefined;
    }
    if (batch.status !== 'validating') return undefined;
    if (!batch.provider_input_file_id) {
      let input;
      try {
        input = await this.services.files.get(batch.workspace_id, batch.input_file_id);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 404) throw error;
        await this.fail(batch, 'file_not_found', `The input file ${batch.input_file_id} was deleted`, 'input_file_id');
        return undefined;
      }
      const providerFileId = await this.api.upload(batch, input);
      await this.batches.update(batch.id, { provider_input_file_id: providerFileId });
      batch = { ...batch, provider_input_file_id: providerFileId };
    }
    const target = await this.api.endpointFor(batch);
    const remote = await this.api.json(batch, 'POST', '/batches', {
      input_file_id: batch.provider_input_file_id,
      endpoint: target,
      completion_window: batch.completion_window,
      metadata: { ...batch.metadata, gw_batch_id: batch.id },
    });
    if (typeof remote.id !== 'string') throw new ProviderCallError('The provider answered the batch create without a batch id', 'provider_error', false);
    await this.batches.update(batch.id, { provider_batch_id: remote.id });
    return { ...batch, provider_batch_id: remote.id };
  }

  /** Copies the provider's status, counts, times and errors into gw's batch; true when anything moved. */
  private async mirror(batch: BatchRecord, remote: Remote): Promise<boolean> {
    const patch: Partial<BatchRecord> = {};
    const counts = countsOf(remote);
    if (counts && (counts.total !== batch.total || counts.completed !== batch.completed || counts.failed !== batch.failed)) Object.assign(patch, counts);
    const errors = errorsOf(remote);
    if (errors && JSON.stringify(errors) !== JSON.stringify(batch.errors)) patch.errors = errors;
    for (const field of TIME_FIELDS) {
      const at = msOf(remote[field]);
      if (at !== undefined && batch[field] === null) patch[field] = at;
    }
    const status = String(remote.status);
    const changed = Object.keys(patch).length > 0;
    let moved = false;
    if (status !== batch.status && (status === 'in_progress' || status === 'finalizing' || status === 'cancelling')) {
      // Status and counts in one write, so a reader never sees one without the other; a cancel asked in gw keeps its status.
      const at = status === 'in_progress' ? 'in_progress_at' : status === 'finalizing' ? 'finalizing_at' : 'cancelling_at';
      moved = await this.batches.update(batch.id, { ...patch, status, [at]: patch[at] ?? batch[at] ?? this.services.now() }, RUNNING_FROM);
    }
    if (!moved && changed) await this.batches.update(batch.id, patch);
    return moved || 'total' in patch;
  }

  /** The provider batch ended: its files become gw files (each recorded once copied), then gw's batch ends the same way. */
  private async finish(batch: BatchRecord, remote: Remote, status: keyof typeof ENDED_AT): Promise<void> {
    const patch: Partial<BatchRecord> = {};
    if (!batch.output_file_id && typeof remote.output_file_id === 'string') {
      patch.output_file_id = await this.api.download(batch, remote.output_file_id, 'output');
      await this.batches.update(batch.id, { output_file_id: patch.output_file_id });
    }
    if (!batch.error_file_id && typeof remote.error_file_id === 'string') {
      patch.error_file_id = await this.api.download(batch, remote.error_file_id, 'error');
      await this.batches.update(batch.id, { error_file_id: patch.error_file_id });
    }
    const field = ENDED_AT[status];
    await this.batches.update(batch.id, { status, [field]: msOf(remote[field]) ?? this.services.now() }, UNFINISHED_BATCH_STATUSES);
  }

  /**
   * A step that failed: a provider busy or out of reach (429, 5xx, no answer) is tried again with a
   * longer wait until the batch's window is past; anything else fails the batch, saying why.
   */
  private async failedStep(batch: BatchRecord, error: unknown, pollMs: number): Promise<void> {
    if (error instanceof ProviderCallError && error.transient && this.services.now() < batch.expires_at) {
      this.services.logger.warn({ batch: batch.id, err: error.message }, 'native batch: provider call failed; trying again');
      const next = Math.min(pollMs * 2, this.poll.maxMs);
      await this.reschedule(batch.id, next, next);
      return;
    }
    if (error instanceof ProviderCallError || error instanceof ApiError) {
      const where = batch.provider_batch_id ? ` (provider batch ${batch.provider_batch_id} is no longer followed)` : '';
      await this.fail(batch, error instanceof ApiError ? error.code : error.code, `${error.message}${where}`, null);
      return;
    }
    throw error;
  }

  private async fail(batch: BatchRecord, code: string, message: string, param: string | null): Promise<void> {
    await this.batches.update(batch.id, { status: 'failed', failed_at: this.services.now(), errors: [{ code, message, param, line: null }] }, UNFINISHED_BATCH_STATUSES);
  }
}
