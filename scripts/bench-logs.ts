/*
 * `make bench-logs`: whether the request log keeps up, measured end to end from outside gw, on
 * Postgres (a database of its own on BENCH_LOGS_DATABASE_URL's server, dropped at the end) and on
 * SQLite (a scratch data directory):
 *
 *   chat     `mock_response` chat calls at gw's full rate for BENCH_LOGS_SECONDS from a closed-loop
 *            load generator in its own process; answered requests, rows written, the lag from the
 *            end of the load to the last row landing, rows/s written (over the load and the lag),
 *            rows dropped, gw's largest RSS.
 *   ingest   `POST /v1/logs`, 100 logs a call, BENCH_LOGS_IN_FLIGHT calls in flight, BENCH_LOGS_ROWS
 *            rows with recent timestamps, then as many spread over 30 days.
 *
 * Each row's rate is set against the same rows written again into the same table in the same run by
 * a plain COPY (Postgres) or one prepared INSERT in a transaction (SQLite): the box's ceiling,
 * rollups left out. Settings: BENCH_LOGS_SECONDS (15; 60 for the target run), BENCH_LOGS_CONNECTIONS
 * (16), BENCH_LOGS_ROWS (20000), BENCH_LOGS_IN_FLIGHT (8), BENCH_LOGS_ENGINES (postgres,sqlite),
 * BENCH_LOGS_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test), BENCH_LOGS_WAIT_SECONDS (120:
 * the longest wait for the log to catch up), BENCH_LOGS_MODES (chat,recent,spread: the rows to run),
 * and any GW_* setting, passed on to gw. BENCH_PROFILE=1 records a CPU profile of gw during each row
 * (data/bench-profile/logs-<engine>-<mode>.cpuprofile) and prints its top costs.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { CHAT_BODY, nodeFlags, profiler, readyPort, runLoad, stopAll } from './bench/processes.js';
import { summarise } from './bench/profile-summary.js';
import { postgresBenchStore, sqliteBenchStore, type BenchStore, type CopyResult } from './bench/log-bench-store.js';
import { ingest, ingestBodies, LOGS_PER_CALL, type Spread } from './bench/log-ingest.js';

const seconds = Number(process.env.BENCH_LOGS_SECONDS ?? 15);
const connections = Number(process.env.BENCH_LOGS_CONNECTIONS ?? 16);
const ingestRows = Number(process.env.BENCH_LOGS_ROWS ?? 20_000);
const inFlight = Number(process.env.BENCH_LOGS_IN_FLIGHT ?? 8);
const engines = (process.env.BENCH_LOGS_ENGINES ?? 'postgres,sqlite').split(',').filter(Boolean);
const databaseUrl = process.env.BENCH_LOGS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const waitSeconds = Number(process.env.BENCH_LOGS_WAIT_SECONDS ?? 120);
const modes = (process.env.BENCH_LOGS_MODES ?? 'chat,recent,spread').split(',').filter(Boolean);
const profile = process.env.BENCH_PROFILE === '1';
const profileDir = path.resolve('data/bench-profile');
const METRICS_TOKEN = 'bench-logs-metrics-token';
const POLL_MS = 100;

interface Row {
  engine: string;
  row: string;
  detail: string;
  rowsPerSecond: number;
  copy: CopyResult;
}

const children: ChildProcess[] = [];

async function startGw(store: BenchStore, adminKey: string): Promise<{ origin: string; child: ChildProcess }> {
  const child = fork(path.resolve('dist/scripts/bench/gw-server.js'), [], {
    execArgv: nodeFlags(),
    env: { ...process.env, ...store.env, GW_ADMIN_API_KEY: adminKey, GW_LOG_LEVEL: process.env.GW_LOG_LEVEL ?? 'warn', GW_METRICS_TOKEN: METRICS_TOKEN },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(child);
  const port = await readyPort(child, 'gw');
  return { origin: `http://127.0.0.1:${port}`, child };
}

/** A few of gw's Prometheus metrics, by name (unlabelled ones). */
async function metrics(origin: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+) ([0-9.e+-]+)$/.exec(line);
    if (match) out[match[1]!] = Number(match[2]);
  }
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function chatRow(store: BenchStore, origin: string, adminKey: string): Promise<Row> {
  const body = JSON.stringify({ ...JSON.parse(CHAT_BODY), mock_response: 'Hello from gw.' });
  const headers = { 'content-type': 'application/json', 'x-gw-api-key': adminKey, 'x-gw-provider': 'openai' };
  let maxRss = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      maxRss = Math.max(maxRss, (await metrics(origin)).process_resident_memory_bytes ?? 0);
      await sleep(1000);
    }
  })();
  const started = Date.now();
  const load = await runLoad({ url: `${origin}/v1/chat/completions`, headers, body, connections, warmupMs: 0, durationMs: seconds * 1000 });
  const loadEnded = Date.now();
  sampling = false;
  const answered = Object.entries(load.statuses).reduce((sum, [status, n]) => (status === 'error' ? sum : sum + n), 0);
  // The lag: from the end of the load to the poll that first sees every answered request's row.
  let written = await store.count({ source: 'gateway' });
  let caughtUp = written >= answered ? loadEnded : undefined;
  while (caughtUp === undefined && Date.now() - loadEnded < waitSeconds * 1000) {
    await sleep(POLL_MS);
    written = await store.count({ source: 'gateway' });
    if (written >= answered) caughtUp = Date.now();
  }
  await sampler;
  const after = await metrics(origin);
  const lagSeconds = ((caughtUp ?? Date.now()) - loadEnded) / 1000;
  const rowsPerSecond = written / ((caughtUp ?? Date.now()) - started) * 1000;
  const errors = load.statuses.error ?? 0;
  const detail = [
    `${answered.toLocaleString()} answered (${Math.round(answered / load.seconds).toLocaleString()}/s${errors ? `, ${errors} transport errors` : ''})`,
    `${written.toLocaleString()} rows`,
    caughtUp === undefined ? `not caught up after ${waitSeconds} s` : `lag ${lagSeconds.toFixed(1)} s`,
    `${after.gw_log_rows_dropped_total ?? 0} dropped`,
    `RSS max ${Math.round(maxRss / 2 ** 20)} MB`,
  ].join(', ');
  const copy = await store.copyAgain({ source: 'gateway' });
  return { engine: store.engine, row: `chat ${seconds} s, ${connections} conns`, detail, rowsPerSecond, copy };
}

async function ingestRow(store: BenchStore, origin: string, adminKey: string, spread: Spread): Promise<Row> {
  const tracePrefix = `bench-${spread}-`;
  const bodies = ingestBodies(ingestRows, spread, tracePrefix);
  const result = await ingest(origin, adminKey, bodies, inFlight);
  const written = await store.count({ source: 'custom', tracePrefix });
  // The rollup folder counts the import in the background: how long after the last call it is done
  // (the COPY below waits for it, so the ceiling is measured on a quiet store).
  const ended = Date.now();
  let folded: number | undefined;
  while (folded === undefined && Date.now() - ended < waitSeconds * 1000) {
    if ((await store.count({ source: 'custom', tracePrefix, notRolledUp: true })) === 0) folded = Date.now();
    else await sleep(POLL_MS);
  }
  const failed = Object.entries(result.statuses).filter(([status]) => status !== '201');
  const detail = [
    `${written.toLocaleString()} rows in ${result.seconds.toFixed(1)} s`,
    failed.length ? `failed calls: ${failed.map(([s, n]) => `${n}x ${s}`).join(', ')}` : 'every call 201',
    folded === undefined ? `not rolled up after ${waitSeconds} s` : `rolled up ${((folded - ended) / 1000).toFixed(1)} s after`,
  ].join(', ');
  const copy = await store.copyAgain({ source: 'custom', tracePrefix });
  const label = spread === 'recent' ? 'recent timestamps' : 'spread over 30 days';
  return { engine: store.engine, row: `POST /v1/logs, ${label} (${LOGS_PER_CALL}/call, ${inFlight} in flight)`, detail, rowsPerSecond: written / result.seconds, copy };
}

/** Runs one row, under gw's CPU profiler when BENCH_PROFILE=1 (its top costs printed after it). */
async function profiled(child: ChildProcess, name: string, measure: () => Promise<Row>): Promise<Row> {
  if (!profile) return measure();
  await profiler(child, { profile: 'start' });
  const row = await measure();
  mkdirSync(profileDir, { recursive: true });
  const file = path.join(profileDir, `logs-${name}.cpuprofile`);
  await profiler(child, { profile: 'stop', file });
  console.log(`\n${name}: gw's CPU profile (${file})\n${summarise(file, 25)}`);
  return row;
}

async function runEngine(engine: string): Promise<Row[]> {
  const store = engine === 'postgres' ? await postgresBenchStore(databaseUrl) : sqliteBenchStore();
  const adminKey = `gw-admin-${randomBytes(12).toString('hex')}`;
  try {
    const { origin, child } = await startGw(store, adminKey);
    const rows: Row[] = [];
    if (modes.includes('chat')) rows.push(await profiled(child, `${engine}-chat`, () => chatRow(store, origin, adminKey)));
    for (const spread of ['recent', 'spread'] as const) {
      if (ingestRows > 0 && modes.includes(spread)) rows.push(await profiled(child, `${engine}-${spread}`, () => ingestRow(store, origin, adminKey, spread)));
    }
    await stopAll([child]);
    return rows;
  } finally {
    await stopAll(children);
    await store.close();
  }
}

function load(): string {
  return loadavg().map((n) => n.toFixed(2)).join(' ');
}

async function main(): Promise<void> {
  console.log(`bench-logs: load average (1, 5, 15 min) ${load()} before`);
  const rows: Row[] = [];
  for (const engine of engines) {
    const engineRows = await runEngine(engine);
    for (const row of engineRows) console.log(`${row.engine} | ${row.row}: ${row.detail}; ${Math.round(row.rowsPerSecond).toLocaleString()} rows/s`);
    rows.push(...engineRows);
  }
  console.log(`bench-logs: load average (1, 5, 15 min) ${load()} after\n`);
  console.log('| Store | Row | Measured | Rows/s written | Plain COPY/INSERT of the same rows | Ratio |');
  console.log('|---|---|---|---:|---:|---:|');
  for (const row of rows) {
    const copyRate = row.copy.rows / row.copy.seconds;
    console.log(`| ${row.engine} | ${row.row} | ${row.detail} | ${Math.round(row.rowsPerSecond).toLocaleString()} | ${Math.round(copyRate).toLocaleString()} | ${(row.rowsPerSecond / copyRate).toFixed(2)} |`);
  }
}

main().catch(async (error: unknown) => {
  console.error(error);
  await stopAll(children);
  process.exit(1);
});
