import type { Knex } from 'knex';
import { fromJson, toJson } from '../json-column.js';
import { AssistantObjectsRepository, type AssistantObjectRow } from './assistant-objects.js';

/**
 * What the executor needs besides the run object, persisted so any instance can take a run over:
 * the caller (limits and logs are theirs), the provider-selection headers sealed with the secret
 * box (erased when the run ends), and the run's own exchange with the model (assistant tool calls
 * and the submitted outputs) that is not thread messages.
 */
export interface StoredRunState {
  principal: Record<string, unknown>;
  sealedHeaders: string | null;
  transcript: Array<Record<string, unknown>>;
  /** The tool_calls step waiting for outputs. */
  toolStepId: string | null;
  /** file_search: searches run so far, and each passage's marker (`search:result`) -> file id, for citations. */
  searches?: number;
  sources?: Record<string, string>;
  /** code_interpreter: calls run so far, and the files they wrote (mounted again in later calls, shown in the message). */
  codeCalls?: number;
  codeFiles?: Array<{ name: string; file_id: string; image: boolean }>;
}

/** The statuses a run leaves only through the executor, a submit, a cancel or expiry. */
export const ACTIVE_RUN_STATUSES = ['queued', 'in_progress', 'requires_action', 'cancelling'] as const;

export interface RunRow<Body, State> extends AssistantObjectRow<Body> {
  status: string;
  state: State | null;
  lease_owner: string | null;
  lease_until: number | null;
}

/** Runs add a status column (compare-and-set transitions), execution state and a lease. */
export class AssistantRunsRepository<Body extends { id: string; status: string }, State> extends AssistantObjectsRepository<Body> {
  constructor(db: Knex | Knex.Transaction) {
    super(db, 'assistant_runs');
  }

  private toRunRow(row: Record<string, unknown>): RunRow<Body, State> {
    return {
      id: row.id as string,
      organisation_id: row.organisation_id as string,
      workspace_id: row.workspace_id as string,
      thread_id: (row.thread_id as string | null) ?? null,
      run_id: null,
      position: Number(row.position),
      body: fromJson(row.body, {} as Body),
      status: row.status as string,
      state: fromJson<State | null>(row.state, null),
      lease_owner: (row.lease_owner as string | null) ?? null,
      lease_until: row.lease_until === null || row.lease_until === undefined ? null : Number(row.lease_until),
    };
  }

  async insertRun(row: AssistantObjectRow<Body>, state: State, lease: { lease_owner: string | null; lease_until: number | null }): Promise<void> {
    await this.insert(row, { status: row.body.status, state: toJson(state), ...lease });
  }

  async byId(id: string): Promise<RunRow<Body, State> | undefined> {
    const row = await this.db(this.table).where({ id }).first();
    return row ? this.toRunRow(row) : undefined;
  }

  /**
   * Writes the run's new body only if its status is still one of `from`: two instances (or a
   * cancel racing the executor) never both move one run. True when this write won.
   */
  async transition(id: string, from: readonly string[], body: Body, changes: { state?: State | null; lease_owner?: string | null; lease_until?: number | null } = {}): Promise<boolean> {
    const values: Record<string, unknown> = { body: toJson(body), status: body.status };
    if ('state' in changes) values.state = changes.state === null ? null : toJson(changes.state);
    if ('lease_owner' in changes) values.lease_owner = changes.lease_owner;
    if ('lease_until' in changes) values.lease_until = changes.lease_until;
    const updated = await this.db(this.table).where({ id }).whereIn('status', [...from]).update(values);
    return updated > 0;
  }

  /** Takes the lease of a run nobody holds (or whose holder's lease lapsed). */
  async claim(id: string, owner: string, now: number, until: number): Promise<boolean> {
    const updated = await this.db(this.table)
      .where({ id })
      .whereIn('status', ['queued', 'in_progress'])
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', now).orWhere('lease_owner', owner))
      .update({ lease_owner: owner, lease_until: until });
    return updated > 0;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.db(this.table).where({ id, lease_owner: owner }).update({ lease_owner: null, lease_until: null });
  }

  /** A thread's run that has not finished, if any (one active run per thread). */
  async activeOnThread(threadId: string): Promise<RunRow<Body, State> | undefined> {
    const row = await this.db(this.table).where({ thread_id: threadId }).whereIn('status', [...ACTIVE_RUN_STATUSES]).first();
    return row ? this.toRunRow(row) : undefined;
  }

  /** Runs no live instance holds: queued or in progress with no lease or a lapsed one. */
  async orphaned(now: number, limit: number): Promise<RunRow<Body, State>[]> {
    const rows = (await this.db(this.table)
      .whereIn('status', ['queued', 'in_progress', 'cancelling'])
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', now))
      .limit(limit)) as Record<string, unknown>[];
    return rows.map((row) => this.toRunRow(row));
  }

  /** Runs waiting (queued or for tool outputs) whose expires_at has passed. */
  async waitingSince(statuses: readonly string[], limit: number): Promise<RunRow<Body, State>[]> {
    const rows = (await this.db(this.table).whereIn('status', [...statuses]).limit(limit)) as Record<string, unknown>[];
    return rows.map((row) => this.toRunRow(row));
  }
}
