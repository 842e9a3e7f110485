/**
 * Seeds synthetic request logs into a throwaway Postgres schema and times every analytics and
 * logs-list query on them. Not part of the test suite.
 *
 *   node --import tsx scripts/seed-logs.ts [postgres-url] [rows]
 *
 * Defaults: postgres://postgres@127.0.0.1:5432/test, 1,000,000 rows over 30 days. The schema
 * (seedlogs_<random>) is dropped at the end, also on failure.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import type { RequestLogEntry } from '../gateway/request-log.js';
import { createDb } from '../store/db.js';
import { LogAnalytics } from '../store/log-analytics.js';
import type { LogFilter } from '../store/log-filter.js';
import { migrateToLatest } from '../store/migrate.js';
import { Store } from '../store/store.js';

const url = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/test';
const total = Number(process.argv[3] ?? 1_000_000);
const DAY = 86_400_000;
const END = Date.parse('2026-11-23T00:00:00.000Z');
const START = END - 30 * DAY;
/** Rows per insertMany call (the repository splits them into multi-row INSERTs) and calls in flight. */
const CHUNK = 5000;
const PARALLEL = 4;

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const organisation = randomUUID();
const workspaces = [randomUUID(), randomUUID(), randomUUID()];
const apiKeys = Array.from({ length: 20 }, () => randomUUID());
const models = [
  ['openai', 'gpt-4o'], ['openai', 'gpt-4o-mini'], ['openai', 'o3-mini'], ['anthropic', 'claude-3-5-sonnet'],
  ['anthropic', 'claude-3-5-haiku'], ['bedrock', 'anthropic.claude-3-haiku'], ['vertex-ai', 'gemini-2.0-flash'], ['azure-openai', 'gpt-4o'],
] as const;
const envs = ['prod', 'staging', 'dev'];

function entry(rand: () => number, i: number): RequestLogEntry {
  const [provider, model] = models[Math.floor(rand() * models.length)]!;
  const roll = rand();
  const status = roll < 0.01 ? 500 : roll < 0.03 ? 429 : roll < 0.04 ? 400 : 200;
  const cacheHit = status === 200 && rand() < 0.1;
  const retried = rand() < 0.03;
  const prompt = 50 + Math.floor(rand() * 2000);
  const completion = status === 200 ? 20 + Math.floor(rand() * 800) : 0;
  return {
    id: randomUUID(),
    trace_id: randomUUID(),
    span_id: null,
    parent_span_id: null,
    span_name: null,
    created_at: START + Math.floor((i / total) * 30 * DAY),
    organisation_id: organisation,
    workspace_id: workspaces[Math.floor(rand() * workspaces.length)]!,
    api_key_id: apiKeys[Math.floor(rand() * apiKeys.length)]!,
    config_id: null,
    provider,
    model,
    status,
    latency_ms: cacheHit ? 5 + Math.floor(rand() * 20) : Math.floor(200 * Math.exp(rand() * 2.5)),
    first_byte_ms: null,
    stream: rand() < 0.3,
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cost: (prompt * 2.5 + completion * 10) / 1e6,
    cache_status: cacheHit ? 'HIT' : 'MISS',
    retry_count: retried ? 1 : 0,
    route: [{ path: 'targets[0]', provider, status }],
    metadata: { env: envs[Math.floor(rand() * envs.length)]!, _user: `user-${Math.floor(rand() * 50)}` },
    request_headers: { 'content-type': 'application/json' },
    request_body: { model, messages: [{ role: 'user', content: 'Summarise the quarterly report in three bullet points.' }] },
    response_body: status === 200 ? { id: 'chatcmpl', choices: [{ message: { role: 'assistant', content: 'Revenue up; costs flat; hiring paused.' } }] } : null,
    error: status === 200 ? null : { code: String(status), message: 'upstream error' },
    guardrail_results: null,
  };
}

async function timed<T>(label: string, work: () => Promise<T>, runs = 3): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(58)} median ${times[Math.floor(runs / 2)]!.toFixed(1).padStart(8)} ms   (runs: ${times.map((t) => t.toFixed(0)).join(', ')})`);
}

async function main(): Promise<void> {
  const schema = `seedlogs_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  await admin.raw(`create schema "${schema}"`);
  const db = createDb({ databaseUrl: url, schema, poolSize: PARALLEL + 2 });
  try {
    await migrateToLatest(db);
    const store = new Store(db);
    const rand = random(42);
    let started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const from = next;
        next = Math.min(total, next + CHUNK);
        const batch: RequestLogEntry[] = [];
        for (let i = from; i < next; i++) batch.push(entry(rand, i));
        await store.requestLogs.insertMany(batch);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    console.log(`inserted ${total.toLocaleString()} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    started = performance.now();
    // Sets the visibility map so aggregates can use index-only scans, as autovacuum would in time.
    await db.raw('vacuum analyze request_logs');
    console.log(`vacuum analyze: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

    const analytics = new LogAnalytics(db);
    const month: LogFilter = { organisation_id: organisation, start: START, end: END };
    const week: LogFilter = { ...month, start: END - 7 * DAY };
    const day: LogFilter = { ...month, start: END - DAY };
    const oneWorkspace: LogFilter = { ...month, workspace_id: workspaces[0] };

    await timed('summary, 30 days (all rows)', () => analytics.summary(month));
    await timed('summary, 7 days', () => analytics.summary(week));
    await timed('summary, 30 days, one workspace', () => analytics.summary(oneWorkspace));
    await timed('summary, 30 days, metadata env=prod', () => analytics.summary({ ...month, metadata: { env: 'prod' } }));
    await timed('feedback totals, 30 days', () => analytics.feedback(month));
    for (const dimension of ['model', 'provider', 'user', 'api_key', 'workspace', 'status'] as const) {
      await timed(`groups by ${dimension}, 30 days`, () => analytics.groups(month, dimension));
    }
    await timed('groups by metadata.env, 30 days', () => analytics.groups(month, 'metadata', 'env'));
    await timed('time series, 30 days by day', () => analytics.timeSeries(month, DAY));
    await timed('time series, 7 days by hour', () => analytics.timeSeries(week, 3_600_000));
    await timed('time series, 1 day by hour', () => analytics.timeSeries(day, 3_600_000));
    await timed('time series, 6 hours by minute', () => analytics.timeSeries({ ...month, start: END - 6 * 3_600_000 }, 60_000));
    await timed('logs list, first page (20)', () => store.requestLogs.list(month, { limit: 20 }));
    const page = await store.requestLogs.list(month, { limit: 20 });
    await timed('logs list, second page via cursor', () => store.requestLogs.list(month, { limit: 20, cursor: page.next_cursor! }));
    await timed('logs list, status 5xx', () => store.requestLogs.list({ ...month, status: ['5xx'] }, { limit: 20 }));
    await timed('logs list, metadata _user=user-7', () => store.requestLogs.list({ ...month, metadata: { _user: 'user-7' } }, { limit: 20 }));
    await timed('logs list, one API key', () => store.requestLogs.list({ ...month, api_key_id: apiKeys[3] }, { limit: 20 }));
    await timed('export count, 30 days, model gpt-4o', () => store.requestLogs.count({ ...month, model: 'gpt-4o' }));
    await timed('retention delete batch (1000 oldest rows)', () => store.requestLogs.deleteOlderThan(START + DAY, 1000));
  } finally {
    await db.destroy();
    await admin.raw(`drop schema if exists "${schema}" cascade`);
    await admin.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
