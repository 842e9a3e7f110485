/**
 * Inserts N synthetic request logs (one organisation, three workspaces, 20 API keys, 8 models,
 * 50 users, ~4% errors, ~10% cache hits, 30 days ending 2026-11-23) into a database, through
 * the repository's multi-row INSERTs, several batches in flight. For load and timing work only.
 *
 *   node --import tsx scripts/seed-logs.ts <postgres-url | sqlite-file> <schema> <rows>
 *
 * On Postgres the schema is created and migrated when missing (a SQLite file ignores it and is
 * migrated). Rows are capped at 5,000,000.
 * scripts/time-analytics.ts uses seedLogs() on a throwaway schema and times every analytics call.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import type { RequestLogEntry } from '../core/request-log.js';
import { createDb } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { Store } from '../store/store.js';

export const MAX_SEED_ROWS = 5_000_000;
const DAY = 86_400_000;
export const SEED_END = Date.parse('2026-11-23T00:00:00.000Z');
export const SEED_START = SEED_END - 30 * DAY;
/** Rows per insertMany call (the repository splits them into INSERTs of 400 rows) and calls in flight. */
const CHUNK = 5000;
const PARALLEL = 4;

export interface SeededLogs {
  organisationId: string;
  workspaceIds: string[];
  apiKeyIds: string[];
  start: number;
  end: number;
}

/** Small deterministic generator (mulberry32), so every run seeds the same distribution. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MODELS = [
  ['openai', 'gpt-4o'], ['openai', 'gpt-4o-mini'], ['openai', 'o3-mini'], ['anthropic', 'claude-sonnet-4-5'],
  ['anthropic', 'claude-3-5-haiku-latest'], ['bedrock', 'anthropic.claude-3-5-haiku-20241022-v1:0'], ['vertex-ai', 'gemini-2.0-flash'], ['azure-openai', 'gpt-4o'],
] as const;
const ENVS = ['prod', 'staging', 'dev'];

function syntheticEntry(rand: () => number, i: number, total: number, ids: SeededLogs): RequestLogEntry {
  const [provider, model] = MODELS[Math.floor(rand() * MODELS.length)]!;
  const roll = rand();
  const status = roll < 0.01 ? 500 : roll < 0.03 ? 429 : roll < 0.04 ? 400 : 200;
  const cacheHit = status === 200 && rand() < 0.1;
  const prompt = 50 + Math.floor(rand() * 2000);
  const completion = status === 200 ? 20 + Math.floor(rand() * 800) : 0;
  return {
    id: randomUUID(),
    endpoint: 'chat.completions',
    trace_id: randomUUID(),
    span_id: null,
    parent_span_id: null,
    span_name: null,
    created_at: ids.start + Math.floor((i / total) * (ids.end - ids.start)),
    organisation_id: ids.organisationId,
    workspace_id: ids.workspaceIds[Math.floor(rand() * ids.workspaceIds.length)]!,
    api_key_id: ids.apiKeyIds[Math.floor(rand() * ids.apiKeyIds.length)]!,
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
    retry_count: rand() < 0.03 ? 1 : 0,
    route: [{ path: '0', provider, status }],
    metadata: { env: ENVS[Math.floor(rand() * ENVS.length)]!, _user: `user-${Math.floor(rand() * 50)}` },
    request_headers: { 'content-type': 'application/json' },
    request_body: { model, messages: [{ role: 'user', content: 'Summarise the quarterly report in three bullet points.' }] },
    response_body: status === 200 ? { id: 'chatcmpl', choices: [{ message: { role: 'assistant', content: 'Revenue up; costs flat; hiring paused.' } }] } : null,
    error: status === 200 ? null : { code: String(status), message: 'upstream error' },
    guardrail_results: null,
  };
}

function checkRows(rows: number): void {
  if (!Number.isSafeInteger(rows) || rows < 1 || rows > MAX_SEED_ROWS) throw new Error(`rows must be 1..${MAX_SEED_ROWS}, got ${rows}`);
}

/** The synthetic rows, oldest first, `chunk` at a time; the same rows on every call (fixed seed). */
export function* syntheticEntries(rows: number, ids: SeededLogs, chunk: number): Generator<RequestLogEntry[]> {
  const rand = random(42);
  for (let from = 0; from < rows; from += chunk) {
    const batch: RequestLogEntry[] = [];
    for (let i = from; i < Math.min(rows, from + chunk); i++) batch.push(syntheticEntry(rand, i, rows, ids));
    yield batch;
  }
}

export function newSeedIds(): SeededLogs {
  return {
    organisationId: randomUUID(),
    workspaceIds: [randomUUID(), randomUUID(), randomUUID()],
    apiKeyIds: Array.from({ length: 20 }, () => randomUUID()),
    start: SEED_START,
    end: SEED_END,
  };
}

/**
 * Inserts `rows` synthetic logs through the repository (rollups included) and answers their ids:
 * for a new organisation, or for the one `ids` names (the console's browser tests seed a test gw's).
 */
export async function seedLogs(db: Knex, rows: number, ids: SeededLogs = newSeedIds()): Promise<SeededLogs> {
  checkRows(rows);
  const store = new Store(db);
  const batches = syntheticEntries(rows, ids, CHUNK);
  const worker = async () => {
    for (let next = batches.next(); !next.done; next = batches.next()) await store.requestLogs.insertMany(next.value);
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return ids;
}

/** A knex on `schema` of a Postgres database (created and migrated when missing), or on a SQLite file. */
export async function openSeedDb(url: string, schema: string): Promise<Knex> {
  if (url.startsWith('postgres')) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`schema must be a plain lower-case identifier, got "${schema}"`);
    const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
    try {
      await admin.raw(`create schema if not exists "${schema}"`);
    } finally {
      await admin.destroy();
    }
  }
  const db = url.startsWith('postgres') ? createDb({ databaseUrl: url, schema, poolSize: PARALLEL + 2 }) : createDb({ sqliteFile: url });
  await migrateToLatest(db);
  return db;
}

async function main(): Promise<void> {
  const [url, schema, rowsArg] = process.argv.slice(2);
  if (!url || !schema || !rowsArg) throw new Error('usage: seed-logs.ts <database-url | sqlite-file> <schema> <rows>');
  checkRows(Number(rowsArg));
  const db = await openSeedDb(url, schema);
  try {
    const started = performance.now();
    const ids = await seedLogs(db, Number(rowsArg));
    if (url.startsWith('postgres')) await db.raw('vacuum analyze request_logs');
    console.log(`inserted ${Number(rowsArg).toLocaleString()} rows in ${((performance.now() - started) / 1000).toFixed(1)} s; organisation ${ids.organisationId}`);
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
