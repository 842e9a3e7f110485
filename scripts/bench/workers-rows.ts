/**
 * The multi-core rows of `make bench` (issue 37): gw started as `make run` starts it (dist/server/main.js)
 * with GW_WORKERS=1 and then GW_WORKERS=2, each a process tree of its own, under the same chat load
 * to the same fake upstream; and, when BENCH_PORTKEY names a directory where `@portkey-ai/gateway`
 * is installed (outside gw's tree, e.g. `npm install @portkey-ai/gateway` in /tmp/portkey), the
 * Portkey gateway in its custom-host mode under the same load, in the same run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type { LoadResult } from './load-generator.js';
import { CHAT_BODY, PLAIN_HEADERS, gwEnv, gwHeaders, nodeFlags, runLoad } from './processes.js';

export interface WorkersRow {
  name: string;
  result: LoadResult;
}

interface Options {
  upstreamPort: number;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Where `@portkey-ai/gateway` is installed (node_modules/ below it), or undefined to leave Portkey out. */
  portkeyDir?: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits until `url` answers 2xx (a process tree starting: gw's first worker migrates, then the rest start). */
async function answering(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited with ${child.exitCode}`);
    if (await fetch(url).then((res) => res.ok, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer within 120 s`);
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** gw with `workers` processes on SQLite in a data directory of its own, request logs on. */
async function measureGw(workers: number, options: Options): Promise<LoadResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-workers-'));
  const adminKey = `gw-bench-${randomBytes(16).toString('hex')}`;
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags(), path.resolve('dist/server/main.js')], {
    env: { ...process.env, ...gwEnv(dataDir, adminKey), GW_LOG_LEVEL: 'info', GW_REQUEST_LOG_LEVEL: 'silent', GW_PORT: String(port), GW_HOST: '127.0.0.1', GW_WORKERS: String(workers), GW_SHUTDOWN_GRACE_MS: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The load's connections are handed out as they open: every worker must listen before it starts.
  const allListening = new Promise<void>((resolve) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (workers === 1 || output.includes('every worker listening')) resolve();
    });
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await answering(`${base}/ready`, child);
    await allListening;
    return await runLoad({ url: `${base}/v1/chat/completions`, headers: gwHeaders(adminKey, options.upstreamPort), body: CHAT_BODY, connections: options.connections, warmupMs: options.warmupMs, durationMs: options.durationMs });
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The Portkey gateway (one Node process: it has no multi-process mode) in custom-host mode to the same upstream. */
async function measurePortkey(dir: string, options: Options): Promise<LoadResult> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(dir, 'node_modules/@portkey-ai/gateway/build/start-server.js'), `--port=${port}`, '--headless'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    const base = `http://127.0.0.1:${port}`;
    await answering(base, child);
    const headers = { ...PLAIN_HEADERS, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `http://127.0.0.1:${options.upstreamPort}/v1` };
    return await runLoad({ url: `${base}/v1/chat/completions`, headers, body: CHAT_BODY, connections: options.connections, warmupMs: options.warmupMs, durationMs: options.durationMs });
  } finally {
    await stop(child);
  }
}

export async function measureWorkers(options: Options): Promise<WorkersRow[]> {
  const rows: WorkersRow[] = [];
  process.stderr.write(`bench: gw GW_WORKERS=1, ${options.connections} connections ...\n`);
  rows.push({ name: 'gw GW_WORKERS=1', result: await measureGw(1, options) });
  process.stderr.write(`bench: gw GW_WORKERS=2, ${options.connections} connections ...\n`);
  rows.push({ name: 'gw GW_WORKERS=2', result: await measureGw(2, options) });
  if (options.portkeyDir) {
    process.stderr.write(`bench: Portkey gateway, ${options.connections} connections ...\n`);
    rows.push({ name: 'portkey gateway', result: await measurePortkey(options.portkeyDir, options) });
  }
  return rows;
}

export function reportWorkers(rows: WorkersRow[], connections: number): void {
  console.log(`\nworkers (${connections} conns, SQLite, request logs on; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')})`);
  for (const { name, result } of rows) {
    const statuses = Object.entries(result.statuses).map(([status, count]) => `${status}:${count}`).join(' ');
    console.log(`  ${name.padEnd(16)} ${result.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${result.p50Ms.toFixed(3)} ms  p99 ${result.p99Ms.toFixed(3)} ms  ${statuses}`);
  }
  const rps = (name: string) => rows.find((row) => row.name === name)?.result.requestsPerSecond;
  const [one, two, portkey] = [rps('gw GW_WORKERS=1'), rps('gw GW_WORKERS=2'), rps('portkey gateway')];
  if (one && two) console.log(`gw GW_WORKERS=2 / GW_WORKERS=1 throughput: ${(two / one).toFixed(2)}x  (goal >= 1.7x on 2 cores)`);
  if (portkey && one) console.log(`gw GW_WORKERS=1 / Portkey gateway throughput: ${(one / portkey).toFixed(1)}x  (goal >= 6x)`);
  if (portkey && two) console.log(`gw GW_WORKERS=2 / Portkey gateway throughput: ${(two / portkey).toFixed(1)}x  (goal >= 10x)`);
}
