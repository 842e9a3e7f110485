import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export interface ClaimedJob {
  id: string;
  name: string;
  payload: Record<string, unknown>;
  attempt: number;
}

/**
 * The in-process queue engine's table. A claim is a conditional update (state and lease checked in
 * the WHERE), so two instances sharing one SQLite file never take the same job.
 */
export class JobsRepository {
  constructor(private readonly db: Knex) {}

  /** False when a job with the same name and singleton key is already waiting. */
  async insert(job: { name: string; payload: Record<string, unknown>; singletonKey?: string; runAt: number; maxAttempts: number; now: number }): Promise<boolean> {
    const inserted = await this.db('jobs')
      .insert({
        id: randomUUID(),
        name: job.name,
        payload: JSON.stringify(job.payload),
        singleton_key: job.singletonKey ?? null,
        state: 'queued',
        attempts: 0,
        max_attempts: job.maxAttempts,
        run_at: job.runAt,
        created_at: job.now,
      })
      .onConflict()
      .ignore()
      .returning('id');
    return inserted.length > 0;
  }

  /**
   * Takes up to `limit` due jobs of the given names: waiting ones whose time has come, and running
   * ones whose lease lapsed (their instance died). A key already running is skipped.
   */
  async claim(names: readonly string[], limit: number, now: number, leaseMs: number): Promise<ClaimedJob[]> {
    if (names.length === 0 || limit <= 0) return [];
    const candidates: Array<Record<string, unknown>> = await this.db('jobs')
      .whereIn('name', names)
      .where((q) => q.where((w) => w.where('state', 'queued').andWhere('run_at', '<=', now)).orWhere((w) => w.where('state', 'active').andWhere('lease_until', '<', now)))
      .orderBy('run_at')
      .limit(limit * 4);
    const keys = [...new Set(candidates.map((row) => row.singleton_key).filter((key): key is string => typeof key === 'string'))];
    const busy = new Set<string>();
    if (keys.length > 0) {
      const running: Array<{ name: string; singleton_key: string }> = await this.db('jobs')
        .whereIn('singleton_key', keys)
        .andWhere('state', 'active')
        .andWhere('lease_until', '>=', now)
        .select('name', 'singleton_key');
      for (const row of running) busy.add(`${row.name}\n${row.singleton_key}`);
    }
    const claimed: ClaimedJob[] = [];
    for (const row of candidates) {
      if (claimed.length >= limit) break;
      const key = typeof row.singleton_key === 'string' ? `${row.name as string}\n${row.singleton_key}` : undefined;
      if (key && busy.has(key)) continue;
      const attempts = Number(row.attempts) + 1;
      if (row.state === 'active' && attempts > Number(row.max_attempts)) {
        await this.db('jobs').where({ id: row.id, state: 'active' }).andWhere('lease_until', '<', now).update({ state: 'failed', finished_at: now, last_error: 'lease lapsed on the last attempt' });
        continue;
      }
      const updated = await this.db('jobs')
        .where({ id: row.id, state: row.state, attempts: row.attempts })
        .update({ state: 'active', attempts, lease_until: now + leaseMs });
      if (updated !== 1) continue;
      if (key) busy.add(key);
      claimed.push({ id: row.id as string, name: row.name as string, payload: JSON.parse(row.payload as string) as Record<string, unknown>, attempt: attempts });
    }
    return claimed;
  }

  async renewLeases(ids: readonly string[], leaseUntil: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db('jobs').whereIn('id', ids).andWhere('state', 'active').update({ lease_until: leaseUntil });
  }

  /** A finished job is deleted: the table holds only work still to do and the jobs that gave up. */
  async complete(id: string): Promise<void> {
    await this.db('jobs').where({ id, state: 'active' }).delete();
  }

  async fail(id: string, error: string, retryAt: number | undefined, now: number): Promise<void> {
    if (retryAt === undefined) {
      await this.db('jobs').where({ id, state: 'active' }).update({ state: 'failed', last_error: error, finished_at: now, lease_until: null });
      return;
    }
    try {
      await this.db('jobs').where({ id, state: 'active' }).update({ state: 'queued', last_error: error, run_at: retryAt, lease_until: null });
    } catch {
      // Another job with the same singleton key is already waiting: it does this work, so the retry is dropped.
      await this.db('jobs').where({ id, state: 'active' }).delete();
    }
  }

  /** Tests and operators: the jobs of a name in a state. */
  async count(name: string, state: 'queued' | 'active' | 'failed'): Promise<number> {
    const [row] = await this.db('jobs').where({ name, state }).count({ n: '*' });
    return Number(row?.n ?? 0);
  }
}
