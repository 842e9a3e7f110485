import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { Principal } from '../../core/auth/principal.js';
import type { SecretBox } from '../../store/secret-box.js';
import type { BatchesRepository, BatchRecord } from '../../store/repositories/batches.js';
import type { FileStore } from '../files/file-store.js';
import type { BatchRunner } from './batch-runner.js';
import { keptHeaders, storedPrincipal } from './line-call.js';
import type { BatchMode } from './native-target.js';
import type { Logger } from '../../core/logger.js';

const COMPLETION_WINDOW_MS = 24 * 3_600_000;

export interface CreateBatch {
  input_file_id: string;
  endpoint: string;
  completion_window: string;
  metadata?: Record<string, string> | null;
}

/** The batches room as handlers use it: create, read, cancel, and point a batch at an output file. */
export class Batches {
  constructor(
    private readonly batches: BatchesRepository,
    private readonly files: FileStore,
    private readonly secrets: SecretBox,
    readonly runner: BatchRunner,
    private readonly now: () => number,
    /** Whether the create request's headers ask for a native batch (refused with 400 when it cannot be one). */
    private readonly chooseMode: (principal: Principal, headers: IncomingHttpHeaders) => Promise<BatchMode>,
    private readonly logger: Logger,
  ) {}

  async create(principal: Principal, headers: IncomingHttpHeaders, request: CreateBatch): Promise<BatchRecord> {
    const workspaceId = principal.gatewayWorkspaceId;
    const input = await this.files.get(workspaceId, request.input_file_id).catch(() => {
      throw new ValidationError(`input_file_id ${request.input_file_id} is not a file of this workspace`, 'input_file_id', 'file_not_found');
    });
    if (input.purpose !== 'batch') throw new ValidationError(`input_file_id ${input.id} has purpose ${input.purpose}; a batch reads a file uploaded with purpose batch`, 'input_file_id', 'invalid_file_purpose');
    const mode = await this.chooseMode(principal, headers);
    const now = this.now();
    const record: BatchRecord = {
      id: `batch_${randomBytes(12).toString('hex')}`,
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      endpoint: request.endpoint,
      input_file_id: input.id,
      completion_window: request.completion_window,
      status: 'validating',
      output_file_id: null,
      error_file_id: null,
      internal_output_file_id: null,
      errors: null,
      metadata: request.metadata ?? null,
      total: 0,
      completed: 0,
      failed: 0,
      principal: JSON.stringify(storedPrincipal(principal)),
      sealed_headers: this.secrets.seal(JSON.stringify(keptHeaders(headers))),
      batch_mode: mode,
      provider_input_file_id: null,
      provider_batch_id: null,
      created_at: now,
      expires_at: now + COMPLETION_WINDOW_MS,
      in_progress_at: null,
      finalizing_at: null,
      completed_at: null,
      failed_at: null,
      expired_at: null,
      cancelling_at: null,
      cancelled_at: null,
    };
    await this.batches.insert(record);
    await this.runner.kick(record.id);
    return record;
  }

  async get(principal: Principal, id: string): Promise<BatchRecord> {
    const batch = await this.batches.get(principal.gatewayWorkspaceId, id);
    if (!batch) throw new NotFoundError('Batch', id);
    return batch;
  }

  list(principal: Principal, limit: number, after?: string) {
    return this.batches.list(principal.gatewayWorkspaceId, limit, after);
  }

  /**
   * Lines not started are not run; lines running finish; then the files are written and the batch is cancelled.
   * A native batch's cancel goes to the provider at once (polling mirrors the outcome, and sends it again if this try failed).
   */
  async cancel(principal: Principal, id: string): Promise<BatchRecord> {
    const batch = await this.get(principal, id);
    if (batch.status === 'cancelling' || batch.status === 'cancelled') return batch;
    const from = batch.batch_mode === 'native' ? (['validating', 'in_progress', 'finalizing'] as const) : (['validating', 'in_progress'] as const);
    const moved = await this.batches.update(id, { status: 'cancelling', cancelling_at: this.now() }, from);
    if (!moved) throw new ConflictError(`Batch ${id} is ${(await this.get(principal, id)).status} and can no longer be cancelled`, 'batch_not_cancellable');
    if (batch.provider_batch_id) {
      await this.runner.native.forwardCancel(batch).catch((error: unknown) => {
        this.logger.warn({ batch: id, err: error instanceof Error ? error.message : String(error) }, 'native batch: cancel not forwarded yet; the next poll sends it');
      });
    }
    await this.runner.kick(id);
    return this.get(principal, id);
  }

  /** `PUT /v2/batches/{id}`: the gw file holding this batch's output, e.g. a provider's output imported into gw. */
  async setInternalOutputFile(principal: Principal, id: string, fileId: string): Promise<BatchRecord> {
    await this.get(principal, id);
    await this.files.get(principal.gatewayWorkspaceId, fileId).catch(() => {
      throw new ValidationError(`internal_output_file_id ${fileId} is not a file of this workspace`, 'internal_output_file_id', 'file_not_found');
    });
    await this.batches.update(id, { internal_output_file_id: fileId });
    return this.get(principal, id);
  }

  /** The file `GET /v1/batches/{id}/output` serves: the internal output file when one is set, else the output file. */
  async outputFileId(principal: Principal, id: string): Promise<string> {
    const batch = await this.get(principal, id);
    const fileId = batch.internal_output_file_id ?? batch.output_file_id;
    if (!fileId) throw new ConflictError(`Batch ${id} is ${batch.status} and has no output yet`, 'batch_output_not_ready');
    return fileId;
  }
}
