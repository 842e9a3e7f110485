import { randomBytes } from 'node:crypto';
import type { JobQueue } from '../../jobs/job-queue.js';
import { ApiError, errorBody } from '../../core/errors.js';
import type { Services } from '../../core/services.js';
import type { BatchesRepository, BatchRecord, BatchStatus, ClaimedLine } from '../../store/repositories/batches.js';
import { lineCall, type StoredPrincipal } from './line-call.js';
import { LINE_EXECUTORS } from './line-executors.js';
import { NativeBatchRunner, type NativePollOptions } from './native-batch.js';

export const BATCH_JOB = 'batches.run';

export interface BatchRunnerOptions {
  /** Lines of one batch in flight at once in one job. */
  concurrency: number;
  /** A line's claim lapses this long after its runner last renewed it (the jobs lease; renewed every third of it). */
  leaseMs: number;
  /** One job stops taking lines after this long and hands over to a continuation job, so other batches get their turn. */
  sliceMs: number;
  /** Native batches: the first and longest wait between polls of the provider's batch. */
  poll: NativePollOptions;
}

const IMPORT_SLICE = 500;
/** Longest upload or download of a native batch's file (hundreds of MB); the job's heartbeat holds it meanwhile. */
const FILE_TRANSFER_MS = 10 * 60_000;

function requestId(): string {
  return `batch_req_${randomBytes(12).toString('hex')}`;
}

/**
 * Runs batches as jobs of the worker room: imports the input file into lines, runs the lines through
 * the endpoint's pipeline a few at a time, and writes the output and error files. Every step is
 * recorded per line, so a job cut short anywhere is picked up by the next job for the batch.
 */
export class BatchRunner {
  /** Batches handed to the provider's own batch API. */
  readonly native: NativeBatchRunner;

  constructor(
    private readonly services: Services,
    private readonly batches: BatchesRepository,
    private readonly jobs: JobQueue,
    private readonly options: BatchRunnerOptions,
  ) {
    this.native = new NativeBatchRunner(services, batches, (id, delayMs, pollMs) => this.kick(id, delayMs, pollMs), options.poll, FILE_TRANSFER_MS);
  }

  /** Schedules a run of the batch (one waits at a time); `pollMs` is a native batch's current wait between polls. */
  kick(batchId: string, delayMs = 0, pollMs?: number): Promise<void> {
    return this.jobs.enqueue(BATCH_JOB, pollMs === undefined ? { batchId } : { batchId, pollMs }, { singletonKey: batchId, delayMs });
  }

  /** At start: every batch not finished gets a job, whatever happened to the jobs it had. */
  async resumeAll(): Promise<void> {
    for (const id of await this.batches.unfinishedIds()) await this.kick(id);
  }

  async run(batchId: string, pollMs?: number): Promise<void> {
    let batch = await this.batches.getById(batchId);
    if (!batch) return;
    if (batch.batch_mode === 'native') return this.native.run(batch, pollMs);
    if (batch.status === 'validating') {
      await this.importLines(batch);
      batch = (await this.batches.getById(batchId))!;
    }
    if (batch.status === 'in_progress' || batch.status === 'cancelling') await this.runLines(batch);
    batch = (await this.batches.getById(batchId))!;
    if (batch.status === 'finalizing') await this.finalize(batch, 'completed');
  }

  /** Reads the JSONL input into lines; a line that cannot run is recorded failed now, with the reason. */
  private async importLines(batch: BatchRecord): Promise<void> {
    const seen = new Set<string>();
    let slice: Parameters<BatchesRepository['insertLines']>[0] = [];
    let line = 0;
    try {
      for await (const text of this.services.files.lines(batch.workspace_id, batch.input_file_id)) {
        if (text.trim() === '') continue;
        const index = line++;
        const checked = checkLine(text, batch.endpoint, seen);
        if ('error' in checked) {
          const result = JSON.stringify({ id: requestId(), custom_id: checked.customId, response: null, error: { code: checked.code, message: `Line ${index + 1}: ${checked.error}` } });
          slice.push({ batch_id: batch.id, line: index, custom_id: checked.customId, request: text, status: 'failed', result, succeeded: false });
        } else {
          slice.push({ batch_id: batch.id, line: index, custom_id: checked.customId, request: text, status: 'pending' });
        }
        if (slice.length >= IMPORT_SLICE) {
          await this.batches.insertLines(slice);
          slice = [];
        }
      }
      await this.batches.insertLines(slice);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      const now = this.services.now();
      await this.batches.update(batch.id, { status: 'failed', failed_at: now, errors: [{ code: 'file_not_found', message: `The input file ${batch.input_file_id} was deleted`, param: 'input_file_id', line: null }] }, ['validating']);
      return;
    }
    const counts = await this.batches.lineCounts(batch.id);
    if (counts.total === 0) {
      await this.batches.update(batch.id, { status: 'failed', failed_at: this.services.now(), errors: [{ code: 'empty_file', message: 'The input file has no request lines', param: 'input_file_id', line: null }] }, ['validating']);
      return;
    }
    await this.batches.update(batch.id, { status: 'in_progress', in_progress_at: this.services.now(), total: counts.total, failed: counts.failed, completed: 0 }, ['validating']);
  }

  private async runLines(batch: BatchRecord): Promise<void> {
    const started = Date.now();
    const held = new Set<string>();
    const renew = setInterval(() => {
      void this.batches.renewClaims(batch.id, [...held], Date.now() + this.options.leaseMs).catch(() => undefined);
    }, Math.max(10, Math.floor(this.options.leaseMs / 3)));
    let pausedUntil = 0;
    let status: BatchStatus = batch.status;
    let expired = false;
    try {
      while (Date.now() - started < this.options.sliceMs && pausedUntil === 0) {
        const current = await this.batches.getById(batch.id);
        if (!current || current.status !== 'in_progress') {
          status = current?.status ?? status;
          break;
        }
        if (this.services.now() >= current.expires_at) {
          expired = true;
          break;
        }
        const lines = await this.batches.claimLines(batch.id, this.options.concurrency, Date.now(), this.options.leaseMs);
        if (lines.length === 0) break;
        held.add(lines[0]!.claim);
        await Promise.all(
          lines.map(async (line) => {
            const until = await this.runLine(batch, line);
            if (until) pausedUntil = Math.max(pausedUntil, until);
          }),
        );
        held.delete(lines[0]!.claim);
      }
    } finally {
      clearInterval(renew);
    }
    if (expired) {
      // Past the completion window: lines not run fail with batch_expired (OpenAI's code), then the files are written.
      await this.batches.failPending(batch.id, (customId) =>
        JSON.stringify({ id: requestId(), custom_id: customId, response: null, error: { code: 'batch_expired', message: 'This line was not run before the batch expired' } }),
      );
    }
    const left = await this.batches.remaining(batch.id);
    if (expired) {
      if (left.running === 0) await this.finalize((await this.batches.getById(batch.id))!, 'expired');
      else await this.kick(batch.id, Math.max(0, (left.nextDueAt ?? Date.now()) - Date.now()));
      return;
    }
    if (status === 'cancelling') {
      // Lines another runner still holds finish first; those never started stay unrun.
      if (left.running === 0) await this.finalize((await this.batches.getById(batch.id))!, 'cancelled');
      else await this.kick(batch.id, Math.max(0, (left.nextDueAt ?? Date.now()) - Date.now()));
      return;
    }
    if (left.pending === 0 && left.running === 0) {
      await this.batches.update(batch.id, { status: 'finalizing', finalizing_at: this.services.now() }, ['in_progress']);
      return;
    }
    const dueAt = pausedUntil || (left.pending > 0 && left.nextDueAt === null ? Date.now() : (left.nextDueAt ?? Date.now()));
    await this.kick(batch.id, Math.max(0, dueAt - Date.now()));
  }

  /** Runs one line; returns the time to resume at when it was rate limited (the line waits until then). */
  private async runLine(batch: BatchRecord, line: ClaimedLine): Promise<number | undefined> {
    const parsed = JSON.parse(line.request) as { custom_id: string; body: Record<string, unknown> };
    const executor = LINE_EXECUTORS.get(batch.endpoint);
    const id = requestId();
    let result: object;
    let succeeded = false;
    if (!executor) {
      result = { id, custom_id: parsed.custom_id, response: null, error: { code: 'unsupported_endpoint', message: `gw does not run ${batch.endpoint} batch lines yet; only /v1/chat/completions lines run` } };
    } else {
      const call = lineCall(this.services, JSON.parse(batch.principal) as StoredPrincipal, JSON.parse(this.services.secrets.open(batch.sealed_headers)) as Record<string, string>, batch.endpoint);
      try {
        const answer = await executor(call, parsed.body);
        succeeded = answer.status < 300;
        result = { id, custom_id: parsed.custom_id, response: { status_code: answer.status, request_id: call.traceId, body: answer.body }, error: null };
      } catch (error) {
        if (error instanceof ApiError && error.status === 429 && error.code !== 'usage_limit_exceeded') {
          // A rate limit (gw's or the provider's) delays the line; a spent budget fails it like a direct request.
          const retryAfter = Number(error.headers['retry-after']);
          const until = Date.now() + (Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 1000);
          await this.batches.releaseLine(batch.id, line.line, line.claim, until);
          return until;
        }
        const failure = error instanceof ApiError ? error : new ApiError(500, 'internal_error', 'The line failed inside gw', 'api_error');
        if (!(error instanceof ApiError)) this.services.logger.error({ err: error instanceof Error ? error.message : String(error), batch: batch.id, line: line.line }, 'batch line failed');
        result = { id, custom_id: parsed.custom_id, response: { status_code: failure.status, request_id: call.traceId, body: errorBody(failure) }, error: null };
      }
    }
    await this.batches.finishLine(batch.id, line.line, line.claim, JSON.stringify(result), succeeded);
    return undefined;
  }

  /** Writes the output and error files (line order) and ends the batch in `status`. */
  private async finalize(batch: BatchRecord, status: 'completed' | 'cancelled' | 'expired'): Promise<void> {
    const output = await this.writeResults(batch, true, 'output');
    const errors = await this.writeResults(batch, false, 'error');
    const now = this.services.now();
    const ended = { completed: { completed_at: now }, cancelled: { cancelled_at: now }, expired: { expired_at: now } }[status];
    const from = { completed: ['finalizing'], cancelled: ['cancelling'], expired: ['in_progress'] } as const;
    await this.batches.update(batch.id, { status, output_file_id: output, error_file_id: errors, ...ended }, from[status]);
  }

  private async writeResults(batch: BatchRecord, succeeded: boolean, kind: string): Promise<string | null> {
    const [first] = await this.batches.results(batch.id, succeeded, -1, 1);
    if (!first) return null;
    const batches = this.batches;
    async function* lines() {
      let after = -1;
      for (;;) {
        const page = await batches.results(batch.id, succeeded, after, 500);
        if (page.length === 0) return;
        yield page.map((row) => row.result + '\n').join('');
        after = page[page.length - 1]!.line;
      }
    }
    // Output files may exceed the upload limit: a batch's own results are always kept whole.
    const file = await this.services.files.write({ organisationId: batch.organisation_id, workspaceId: batch.workspace_id, purpose: 'batch_output', filename: `${batch.id}_${kind}.jsonl` }, lines(), Number.MAX_SAFE_INTEGER);
    return file.id;
  }
}

type CheckedLine = { customId: string } | { customId: string | null; error: string; code: string };

/** A line must be `{custom_id, method: "POST", url: <the batch's endpoint>, body: {...}}` with a custom_id used once. */
function checkLine(text: string, endpoint: string, seen: Set<string>): CheckedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { customId: null, error: 'not valid JSON', code: 'invalid_json_line' };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { customId: null, error: 'a line must be a JSON object', code: 'invalid_request' };
  const line = value as Record<string, unknown>;
  const customId = typeof line.custom_id === 'string' && line.custom_id.length > 0 ? line.custom_id : null;
  if (!customId) return { customId: null, error: 'custom_id must be a non-empty string', code: 'missing_required_parameter' };
  if (seen.has(customId)) return { customId, error: `custom_id ${customId} is used by an earlier line`, code: 'duplicate_custom_id' };
  seen.add(customId);
  if (line.method !== 'POST') return { customId, error: 'method must be POST', code: 'invalid_method' };
  if (line.url !== endpoint) return { customId, error: `url must be the batch's endpoint ${endpoint}, got ${String(line.url)}`, code: 'mismatched_url' };
  if (!line.body || typeof line.body !== 'object' || Array.isArray(line.body)) return { customId, error: 'body must be a JSON object', code: 'invalid_request' };
  return { customId };
}
