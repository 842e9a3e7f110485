/**
 * Executes runs: takes a run's lease (so one instance executes it), moves it queued ->
 * in_progress, runs a model turn, and ends it in requires_action, completed, incomplete, failed
 * or cancelled. Every transition is a compare-and-set on the run's status, so a cancel, an
 * expiry or another instance racing the executor never moves a run twice.
 *
 * Durability: the run, its steps and its state live in the store. A sweep (every few seconds,
 * and at start) expires runs left waiting past expires_at, executes queued runs nobody holds,
 * and fails with server_error the in_progress runs whose instance died (their lease lapsed), so
 * no run stays in_progress forever. Graceful shutdown lets turns in flight finish for a while,
 * then hands the rest back (in_progress -> queued) for another instance.
 */
import { randomUUID } from 'node:crypto';
import { ValidationError } from '../../core/errors.js';
import type { Services } from '../../core/services.js';
import { unixSeconds } from './object-ids.js';
import { CodeSandbox } from './code-sandbox.js';
import { RunEvents } from './run-events.js';
import { RunTurn, type TurnOutcome } from './run-turn.js';
import type { RunState } from './run-state.js';
import type { ChunkSink } from '../chat/chunk-sink.js';
import type { RunObject, RunStepObject, RunUsage } from './wire.js';

/** A run waiting (queued, or for tool outputs) longer than this expires. */
export const RUN_EXPIRY_SECONDS = 600;
const SWEEP_MS = 5_000;
const CANCEL_TOPIC = 'assistant-run-cancel';
/** The worker room's job that executes a run's next turn on whichever instance takes it. */
export const RUN_TURN_JOB = 'assistant-run-turn';

type RunRow = NonNullable<Awaited<ReturnType<Services['store']['assistantRuns']['byId']>>>;
type Terminal = 'completed' | 'failed' | 'incomplete' | 'cancelled' | 'expired';

function addUsage(total: RunObject['usage'], turn: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined): RunUsage | null {
  if (!turn) return total ?? null;
  const base = total ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  return {
    prompt_tokens: base.prompt_tokens + turn.prompt_tokens,
    completion_tokens: base.completion_tokens + turn.completion_tokens,
    total_tokens: base.total_tokens + turn.total_tokens,
  };
}

interface Held {
  res?: ChunkSink;
  /** A cancel or shutdown asked the turn to stop: a turn that has not reached its model call yet stops as it does. */
  stop?: boolean;
  handBack?: boolean;
  /** The turn's last write cleared the run's lease already: no separate release. */
  released?: boolean;
}

/** Written with a run's move out of a turn: no instance holds it any more. */
const NO_LEASE = { lease_owner: null, lease_until: null };

export class RunExecutor {
  readonly events = new RunEvents();
  /** This instance, as lease owner. */
  readonly owner = randomUUID();
  private readonly held = new Map<string, Held>();
  private readonly running = new Set<Promise<void>>();
  private sweeper: NodeJS.Timeout | undefined;
  private closing = false;
  private codeSandbox: CodeSandbox | undefined;

  /** The code interpreter's sandbox, started at the first code call of this instance. */
  get sandbox(): CodeSandbox {
    return (this.codeSandbox ??= new CodeSandbox(this.services.config.codeInterpreter));
  }

  /** How long a turn's lease lasts unrenewed (GW_RUN_LEASE_SECONDS): the longest a dead instance's run stays in_progress. */
  private readonly leaseMs: number;

  constructor(private readonly services: Services) {
    this.leaseMs = services.config.runLeaseMs;
  }

  start(): void {
    this.services.jobs.register<{ run_id: string }>(
      RUN_TURN_JOB,
      async (payload) => {
        // A job taken while this instance shuts down fails its attempt, so the queue retries it on an instance that stays.
        if (this.closing) throw new Error('gw is shutting down; the run turn is retried');
        await this.execute(payload.run_id);
      },
      { concurrency: 8 },
    );
    this.services.bus.subscribe(CANCEL_TOPIC, (runId) => this.abortHeld(runId));
    // A lapsed lease is found within one sweep: short leases are swept more often.
    const sweepMs = Math.min(SWEEP_MS, this.leaseMs);
    this.sweeper = setInterval(() => void this.sweep().catch((error: unknown) => this.services.logger.error({ err: error }, 'assistant run sweep failed')), sweepMs);
    this.sweeper.unref();
    void this.sweep().catch(() => undefined);
  }

  /** The lease a run created here starts with: no other instance's sweep takes it before this one executes it. */
  initialLease(): { lease_owner: string; lease_until: number } {
    return { lease_owner: this.owner, lease_until: this.services.now() + this.leaseMs };
  }

  /** Queues the run's next turn as a job: any instance executes it (one at a time per run). */
  async schedule(runId: string): Promise<void> {
    await this.services.jobs.enqueue(RUN_TURN_JOB, { run_id: runId }, { singletonKey: runId });
  }

  /** Executes the run's next turn in this process (streamed runs: the tokens go to the client here). Resolves when the turn has ended. */
  execute(runId: string): Promise<void> {
    if (this.closing || this.held.has(runId)) return Promise.resolve();
    const work = this.drive(runId).finally(() => this.running.delete(work));
    this.running.add(work);
    return work;
  }

  private get repo() {
    return this.services.store.assistantRuns;
  }

  private nowSeconds(): number {
    return unixSeconds(this.services.now());
  }

  private emit(run: RunObject, event: string, data: unknown = run): void {
    this.events.emit(run.id, event, data);
  }

  private async drive(runId: string): Promise<void> {
    const held: Held = {};
    this.held.set(runId, held);
    const { repo, services } = this;
    try {
      const now = services.now();
      const { leaseMs } = this;
      if (!(await repo.claim(runId, this.owner, now, now + leaseMs))) return;
      const renew = setInterval(() => void repo.claim(runId, this.owner, services.now(), services.now() + leaseMs).catch(() => undefined), leaseMs / 3);
      renew.unref();
      try {
        await this.turn(runId, held);
      } finally {
        clearInterval(renew);
        if (!held.released) await repo.release(runId, this.owner);
      }
    } catch (error) {
      services.logger.error({ err: error, runId }, 'assistant run turn failed');
      const row = await repo.byId(runId).catch(() => undefined);
      if (row) await this.end(row, 'failed', { last_error: { code: 'server_error', message: 'The run failed in gw' } }, ['in_progress', 'cancelling']).catch(() => undefined);
    } finally {
      this.held.delete(runId);
    }
  }

  private async turn(runId: string, held: Held): Promise<void> {
    const row = await this.repo.byId(runId);
    if (!row) return;
    let run = row.body;
    if (run.status === 'cancelling') return void (held.released = Boolean(await this.end(row, 'cancelled', {}, ['cancelling'])));
    // A run that waited in the queue past expires_at (no instance free to take it) expires instead of starting.
    if (run.status === 'queued' && (await this.expireIfDue(row)).status === 'expired') return;
    if (run.status === 'queued') {
      const started: RunObject = { ...run, status: 'in_progress', started_at: run.started_at ?? this.nowSeconds() };
      if (!(await this.repo.transition(run.id, ['queued'], started))) return;
      run = started;
      this.emit(run, 'thread.run.in_progress');
    } else if (run.status !== 'in_progress') return;
    const current = { ...row, body: run };
    const outcome = await new RunTurn(this.services, this.events, {
      run,
      owner: { organisationId: row.organisation_id, workspaceId: row.workspace_id },
      state: row.state!,
      onResponse: (res) => {
        held.res = res;
        if (held.stop) res.stop();
      },
    }).execute();
    await this.settle(current, outcome, held);
  }

  private async settle(row: RunRow, outcome: TurnOutcome, held: Held): Promise<void> {
    const run: RunObject = { ...row.body, usage: addUsage(row.body.usage, outcome.usage) };
    const withUsage = { ...row, body: run };
    switch (outcome.kind) {
      case 'completed':
        return void (held.released = Boolean(await this.end(withUsage, 'completed', {})));
      case 'incomplete':
        return void (held.released = Boolean(await this.end(withUsage, 'incomplete', { incomplete_details: { reason: outcome.reason } })));
      case 'failed':
        return void (held.released = Boolean(await this.end(withUsage, 'failed', { last_error: { code: outcome.code, message: outcome.message } })));
      case 'aborted':
        if (held.handBack) {
          // Shutdown: another instance (or this one after restart) executes the turn again.
          if (await this.repo.transition(run.id, ['in_progress'], { ...run, status: 'queued' }, NO_LEASE)) {
            held.released = true;
            await this.schedule(run.id);
          }
          return;
        }
        return void (held.released = Boolean(await this.end(withUsage, 'cancelled', {}, ['cancelling', 'in_progress'])));
      case 'searched': {
        const state: RunState = {
          ...row.state!,
          transcript: [...row.state!.transcript, ...outcome.transcriptAdd],
          searches: (row.state!.searches ?? 0) + outcome.searches,
          sources: { ...row.state!.sources, ...outcome.sources },
          codeCalls: (row.state!.codeCalls ?? 0) + outcome.codeCalls,
          codeFiles: [...(row.state!.codeFiles ?? []), ...outcome.codeFiles],
        };
        // The next turn runs now, in this job, with the passages in its transcript.
        if (await this.repo.transition(run.id, ['in_progress'], run, { state })) return this.turn(run.id, held);
        held.released = Boolean(await this.end(withUsage, 'cancelled', {}, ['cancelling']));
        return;
      }
      case 'requires_action': {
        const waiting: RunObject = {
          ...run,
          status: 'requires_action',
          required_action: { type: 'submit_tool_outputs', submit_tool_outputs: { tool_calls: outcome.toolCalls } },
          expires_at: this.nowSeconds() + RUN_EXPIRY_SECONDS,
        };
        const state: RunState = { ...row.state!, transcript: [...row.state!.transcript, outcome.transcriptAdd], toolStepId: outcome.stepId };
        if (await this.repo.transition(run.id, ['in_progress'], waiting, { state, ...NO_LEASE })) {
          held.released = true;
          this.emit(waiting, 'thread.run.requires_action');
        }
        // A cancel arrived during the turn: the run is `cancelling`, and ends cancelled now.
        else held.released = Boolean(await this.end(withUsage, 'cancelled', {}, ['cancelling']));
        return;
      }
    }
  }

  /**
   * Moves a run to a final status (from `from`, default in_progress), with its timestamp, and
   * erases its sealed provider headers and its lease. A run that was being cancelled meanwhile ends cancelled.
   */
  async end(row: RunRow, status: Terminal, patch: Partial<RunObject>, from: readonly string[] = ['in_progress']): Promise<RunObject | undefined> {
    const at = this.nowSeconds();
    const stamp: Partial<RunObject> = {
      completed: { completed_at: at },
      failed: { failed_at: at },
      incomplete: {},
      cancelled: { cancelled_at: at },
      expired: {},
    }[status];
    const body: RunObject = { ...row.body, ...patch, ...stamp, status, required_action: null, expires_at: null };
    const state = row.state ? { ...row.state, sealedHeaders: null } : null;
    if (!(await this.repo.transition(row.id, from, body, { state, ...NO_LEASE }))) {
      if (status !== 'cancelled' && !from.includes('cancelling')) {
        const fresh = await this.repo.byId(row.id);
        if (fresh?.status === 'cancelling') return this.end({ ...fresh, body: { ...fresh.body, usage: row.body.usage } }, 'cancelled', {}, ['cancelling']);
      }
      return undefined;
    }
    await this.closeWaitingStep(row, status, at);
    this.emit(body, `thread.run.${status}`);
    return body;
  }

  /** A tool_calls step still waiting for outputs ends with its run. */
  private async closeWaitingStep(row: RunRow, status: Terminal, at: number): Promise<void> {
    const stepId = row.state?.toolStepId;
    if (!stepId || row.body.status !== 'requires_action') return;
    const steps = this.services.store.assistantRunSteps;
    const step = await steps.get({ workspaceId: row.workspace_id, runId: row.id }, stepId);
    if (!step || step.body.status !== 'in_progress') return;
    const stepStatus: RunStepObject['status'] = status === 'expired' ? 'expired' : status === 'cancelled' ? 'cancelled' : 'failed';
    const body: RunStepObject = {
      ...step.body,
      status: stepStatus,
      expired_at: stepStatus === 'expired' ? at : null,
      cancelled_at: stepStatus === 'cancelled' ? at : null,
      failed_at: stepStatus === 'failed' ? at : null,
    };
    await steps.replaceBody(stepId, body);
  }

  /** The cancel call: a waiting run ends at once; a run in a turn is told to stop (on whichever instance holds it). */
  async cancel(row: RunRow): Promise<RunObject> {
    const run = row.body;
    if (run.status === 'queued' || run.status === 'requires_action') {
      const ended = await this.end(row, 'cancelled', {}, [run.status]);
      if (ended) return ended;
    } else if (run.status === 'in_progress') {
      const cancelling: RunObject = { ...run, status: 'cancelling' };
      if (await this.repo.transition(run.id, ['in_progress'], cancelling)) {
        this.emit(cancelling, 'thread.run.cancelling');
        await this.services.bus.publish(CANCEL_TOPIC, run.id);
        return cancelling;
      }
    }
    const fresh = (await this.repo.byId(run.id))?.body ?? run;
    if (fresh.status === 'cancelling') return fresh;
    throw new ValidationError(`Cannot cancel run ${run.id} with status ${fresh.status}`, 'run_id', 'run_not_cancellable');
  }

  private abortHeld(runId: string): void {
    const held = this.held.get(runId);
    if (!held) return;
    held.stop = true;
    held.res?.stop();
  }

  /** Submitted tool outputs continue the run: they join its exchange, the step completes, the run is queued again. */
  async submitToolOutputs(row: RunRow, outputs: ReadonlyArray<{ tool_call_id: string; output?: string }>, executedHere: boolean): Promise<RunObject> {
    const run = row.body;
    if (run.status !== 'requires_action' || !row.state) {
      throw new ValidationError(`Runs in status ${run.status} do not accept tool outputs`, 'run_id', 'run_not_waiting_for_outputs');
    }
    const pending = run.required_action?.submit_tool_outputs.tool_calls ?? [];
    const byId = new Map(outputs.map((output, index) => [output.tool_call_id, { output, index }]));
    outputs.forEach((output, index) => {
      if (!pending.some((call) => call.id === output.tool_call_id)) {
        throw new ValidationError(`No pending tool call ${output.tool_call_id}`, `tool_outputs[${index}].tool_call_id`, 'unknown_tool_call');
      }
    });
    const missing = pending.filter((call) => !byId.has(call.id));
    if (missing.length) throw new ValidationError(`Missing outputs for tool calls ${missing.map((call) => call.id).join(', ')}`, 'tool_outputs', 'missing_tool_outputs');
    const transcript = [...row.state.transcript, ...pending.map((call) => ({ role: 'tool', tool_call_id: call.id, content: byId.get(call.id)!.output.output ?? '' }))];
    const queued: RunObject = { ...run, status: 'queued', required_action: null, expires_at: this.nowSeconds() + RUN_EXPIRY_SECONDS };
    if (!(await this.repo.transition(run.id, ['requires_action'], queued, { state: { ...row.state, transcript, toolStepId: null }, ...(executedHere ? this.initialLease() : {}) }))) {
      throw new ValidationError(`Run ${run.id} is no longer waiting for tool outputs`, 'run_id', 'run_not_waiting_for_outputs');
    }
    await this.completeToolStep(row, byId);
    this.emit(queued, 'thread.run.queued');
    return queued;
  }

  private async completeToolStep(row: RunRow, byId: Map<string, { output: { output?: string } }>): Promise<void> {
    const stepId = row.state?.toolStepId;
    if (!stepId) return;
    const steps = this.services.store.assistantRunSteps;
    const step = await steps.get({ workspaceId: row.workspace_id, runId: row.id }, stepId);
    if (!step) return;
    const details = step.body.step_details as { type: 'tool_calls'; tool_calls: Array<{ id: string; function: Record<string, unknown> }> };
    const body: RunStepObject = {
      ...step.body,
      status: 'completed',
      completed_at: this.nowSeconds(),
      step_details: { ...details, tool_calls: details.tool_calls.map((call) => ({ ...call, function: { ...call.function, output: byId.get(call.id)?.output.output ?? null } })) },
    };
    await steps.replaceBody(stepId, body);
    this.events.emit(row.id, 'thread.run.step.completed', body);
  }

  /** Expires a waiting run whose expires_at has passed; answers the run as it now is. */
  async expireIfDue(row: RunRow): Promise<RunObject> {
    const run = row.body;
    if ((run.status === 'queued' || run.status === 'requires_action') && typeof run.expires_at === 'number' && run.expires_at < this.nowSeconds()) {
      return (await this.end(row, 'expired', {}, [run.status])) ?? (await this.repo.byId(run.id))?.body ?? run;
    }
    return run;
  }

  /** Expiry, orphaned queued runs, and runs whose instance died mid-turn. */
  async sweep(): Promise<void> {
    if (this.closing) return;
    const now = this.services.now();
    for (const row of await this.repo.waitingSince(['queued', 'requires_action'], 200)) await this.expireIfDue(row);
    for (const row of await this.repo.orphaned(now, 100)) {
      if (this.held.has(row.id)) continue;
      if (row.status === 'queued') await this.schedule(row.id);
      else if (row.status === 'cancelling') await this.end(row, 'cancelled', {}, ['cancelling']);
      else await this.end(row, 'failed', { last_error: { code: 'server_error', message: 'The gw instance executing the run stopped during a model turn' } }, ['in_progress']);
    }
  }

  /** Waits up to `graceMs` for turns in flight, then hands the rest back to the queue. */
  async close(graceMs = 5_000): Promise<void> {
    this.closing = true;
    // Turns handed back below go to instances that stay: this one takes no more (taking one only to
    // fail it would push its retry back by the queue's backoff).
    await this.services.jobs.stopWorking(RUN_TURN_JOB);
    if (this.sweeper) clearInterval(this.sweeper);
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.all([...this.running]), timeout]);
    for (const held of this.held.values()) {
      held.handBack = true;
      held.stop = true;
      held.res?.stop();
    }
    await Promise.all([...this.running]);
    this.codeSandbox?.close();
  }
}
