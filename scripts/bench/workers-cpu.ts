/**
 * Where the CPU of a chat call goes with GW_WORKERS=1 and 2 (issue 37): CPU time (all threads,
 * /proc/<pid>/stat) of every process of the gw tree, of the load generator and of the fake upstream,
 * per call, over the same closed-loop load. CPU time per call is what other load on the machine
 * does not inflate much, unlike requests/s; the sum per call bounds what two cores can serve.
 * With one worker it also splits gw's CPU by thread (the main thread, the SQLite log writer thread,
 * V8's helpers); CPU_PROF_DIR=<dir> has every gw thread write a CPU profile there.
 * Run: npx tsx scripts/bench/workers-cpu.ts [connections] [seconds]
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type { LoadResult } from './load-generator.js';
import type { ReadyMessage } from './child-ipc.js';
import { CHAT_BODY, gwEnv, gwHeaders, nodeFlags } from './processes.js';

const here = import.meta.dirname;
const TICK_US = 1e6 / 100; // USER_HZ

function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return 0;
  }
}

/** CPU time of a process's main thread (the event loop) alone. */
function mainThreadMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return 0;
  }
}

/** CPU time of each thread of a process, by name and thread id (Node names its worker threads and V8's helpers alike). */
function threadMicros(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const name = Number(tid) === pid ? 'main' : `${readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()}#${tid}`;
        const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_US);
      } catch { /* gone */ }
    }
  } catch { /* gone */ }
  return byName;
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch { /* gone */ }
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const built = import.meta.filename.endsWith('.js');
function forkTs(file: string, args: string[] = []): ChildProcess {
  return fork(path.join(here, built ? file.replace(/\.ts$/, '.js') : file), args, { execArgv: built ? nodeFlags() : ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

async function measure(workers: number, upstreamPort: number, upstreamPid: number, connections: number, seconds: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-workers-cpu-'));
  const adminKey = `gw-bench-${randomBytes(16).toString('hex')}`;
  const port = await freePort();
  // gw as `make run` starts it: the build (run `make build` first).
  const main = [...nodeFlags(), ...(process.env.CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF_DIR}`] : []), path.resolve('dist/server/main.js')];
  const gw = spawn(process.execPath, main, {
    env: { ...process.env, ...gwEnv(dataDir, adminKey), GW_REQUEST_LOG_LEVEL: 'silent', GW_PORT: String(port), GW_HOST: '127.0.0.1', GW_WORKERS: String(workers), GW_SHUTDOWN_GRACE_MS: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  gw.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (gw.exitCode !== null) throw new Error(`gw exited: ${output}`);
    const ok = await fetch(`${base}/ready`).then((res) => res.ok, () => false);
    if (ok && (workers === 1 || output.includes('every worker listening'))) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const tree = () => [gw.pid!, ...childrenOf(gw.pid!)];
  const load = forkTs('load-generator.ts');
  const job = { url: `${base}/v1/chat/completions`, headers: gwHeaders(adminKey, upstreamPort), body: CHAT_BODY, connections, warmupMs: 2000, durationMs: seconds * 1000 };
  // Sampled when the load generator ends its warm-up, and again when it reports.
  const sample = () => ({ gw: tree().map((pid) => [pid, cpuMicros(pid)] as const), main: tree().map((pid) => [pid, mainThreadMicros(pid)] as const), threads: threadMicros(gw.pid!), load: cpuMicros(load.pid!), upstream: cpuMicros(upstreamPid), at: performance.now() });
  const result = await new Promise<{ start: ReturnType<typeof sample>; end: ReturnType<typeof sample>; result: LoadResult }>((resolve) => {
    let start: ReturnType<typeof sample>;
    load.on('message', (message: LoadResult | { warmedUp: true }) => {
      if ('warmedUp' in message) start = sample();
      else resolve({ start, end: sample(), result: message });
    });
    load.send(job);
  });
  await new Promise<void>((resolve) => {
    gw.once('exit', () => resolve());
    gw.kill('SIGTERM');
  });
  rmSync(dataDir, { recursive: true, force: true });
  const calls = result.result.requests;
  const per = (micros: number) => micros / calls;
  const startOf = new Map(result.start.gw);
  const mainStart = new Map(result.start.main);
  const mainEnd = new Map(result.end.main);
  const gwParts = result.end.gw.map(([pid, end]) => ({ pid, us: per(end - (startOf.get(pid) ?? 0)), mainUs: per((mainEnd.get(pid) ?? 0) - (mainStart.get(pid) ?? 0)), role: pid === gw.pid ? (workers === 1 ? 'gw' : 'primary') : 'worker' }));
  const gwTotal = gwParts.reduce((sum, part) => sum + part.us, 0);
  const wallSec = (result.end.at - result.start.at) / 1000;
  // The first gw process's threads by name (with one worker, gw itself).
  const threads = [...result.end.threads].map(([name, end]) => [name, per(end - (result.start.threads.get(name) ?? 0))] as const).filter(([, us]) => us > 0.5).sort((a, b) => b[1] - a[1]);
  return { workers, rps: result.result.requestsPerSecond, calls, wallSec, gwParts, gwTotal, threads, load: per(result.end.load - result.start.load), upstream: per(result.end.upstream - result.start.upstream), statuses: result.result.statuses };
}

const connections = Number(process.argv[2] ?? 32);
const seconds = Number(process.argv[3] ?? 10);
const upstream = forkTs('fake-upstream.ts');
const upstreamPort = await new Promise<number>((resolve) => upstream.once('message', (message: ReadyMessage) => resolve(message.port)));
console.log(`load average before: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
const rows = [];
for (const workers of (process.env.WORKERS ?? '1,2').split(',').map(Number)) rows.push(await measure(workers, upstreamPort, upstream.pid!, connections, seconds));
upstream.kill('SIGTERM');
for (const row of rows) {
  const parts = row.gwParts.filter((part) => part.us > 0.5).map((part) => `${part.role} ${part.us.toFixed(0)}, main thread ${part.mainUs.toFixed(0)}`).join(' + ');
  const all = row.gwTotal + row.load + row.upstream;
  console.log(
    `GW_WORKERS=${row.workers}: ${row.rps.toFixed(0)} req/s (${row.calls} calls, ${JSON.stringify(row.statuses)}); CPU µs per call: gw ${row.gwTotal.toFixed(0)} (${parts}), load generator ${row.load.toFixed(0)}, upstream ${row.upstream.toFixed(0)}; all ${all.toFixed(0)} ` +
      `-> 2 cores serve at most ${(2e6 / all).toFixed(0)} req/s; cores busy during the run ${((all * row.calls) / 1e6 / row.wallSec).toFixed(2)}`,
  );
  console.log(`  ${row.gwParts[0]?.role} threads, CPU µs per call: ${row.threads.map(([name, us]) => `${name} ${us.toFixed(0)}`).join(', ')}`);
}
console.log(`load average after: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
