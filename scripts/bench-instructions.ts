/*
 * `make bench-instructions`: CPU instructions per request for gw's chat path and for the bare Node
 * proxy, counted by valgrind's callgrind. Wall-clock figures on this shared machine move by 10-15%
 * from one run to the next, even with two builds under load at the same moment; the main thread's
 * instruction count repeats within 1%, so it tells whether a change made the chat path cheaper.
 * Callgrind runs a program about fifty times slower: a run takes several minutes.
 *
 *   BENCH_WARMUP_REQUESTS (3000): requests before counting starts, so the JIT has settled
 *   BENCH_REQUESTS (1500): at least this many requests are counted; BENCH_CONNECTIONS (4)
 *   BENCH_OPERATION (chat): `embeddings` counts the embeddings row's request instead, on both
 *   (POST /v1/embeddings, a 1,536-float answer; the bare proxy forwards any path)
 *
 * gw and the proxy run compiled from dist/ (`make bench-instructions` builds first), each under
 * callgrind with one count per thread; the fake upstream and the load generator run normally.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadJob } from './bench/load-generator.js';
import { CHAT_BODY, EMBEDDINGS_BODY, PLAIN_HEADERS, gwEnv, gwHeaders, nodeFlags, readyPort, runLoad, stopAll } from './bench/processes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const warmupRequests = Number(process.env.BENCH_WARMUP_REQUESTS ?? 3000);
const countedRequests = Number(process.env.BENCH_REQUESTS ?? 1500);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 4);
const operation = process.env.BENCH_OPERATION === 'embeddings' ? { path: '/v1/embeddings', body: EMBEDDINGS_BODY } : { path: '/v1/chat/completions', body: CHAT_BODY };

const children: ChildProcess[] = [];

function ready(child: ChildProcess, name: string): Promise<number> {
  children.push(child);
  return readyPort(child, name);
}

interface Started {
  port: number;
  pid: number;
}

/** A compiled bench server under callgrind (--smc-check=all: V8 writes the code it runs). */
async function underCallgrind(name: string, args: string[], env: Record<string, string>, outDir: string): Promise<Started> {
  const child = fork(path.resolve('dist/scripts/bench', `${name}.js`), args, {
    execPath: 'valgrind',
    execArgv: ['--tool=callgrind', '--smc-check=all', '--separate-threads=yes', `--callgrind-out-file=${path.join(outDir, name)}.%p`, process.execPath, ...nodeFlags()],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  return { port: await ready(child, name), pid: child.pid! };
}

function callgrind(pid: number, ...command: string[]): void {
  execFileSync('callgrind_control', [...command, String(pid)], { stdio: 'ignore' });
}

interface Counted {
  requests: number;
  /** Instructions per request on the main thread (the event loop) and on all threads together. */
  main: number;
  all: number;
}

/** Load in slices of a few seconds until at least `requests` were answered; how many were. */
async function loadAtLeast(name: string, job: Omit<LoadJob, 'warmupMs' | 'durationMs'>, requests: number): Promise<number> {
  let answered = 0;
  while (answered < requests) {
    const result = await runLoad({ ...job, warmupMs: 0, durationMs: 5_000 });
    if (Object.keys(result.statuses).some((status) => !status.startsWith('2'))) {
      throw new Error(`${name} answered ${JSON.stringify(result.statuses)}: not a working ${operation.path} path`);
    }
    answered += result.allRequests;
  }
  return answered;
}

/** Warm up, then count the instructions of the measured requests (callgrind's dump: one file per thread). */
async function count(name: string, pid: number, job: Omit<LoadJob, 'warmupMs' | 'durationMs'>, outDir: string): Promise<Counted> {
  await loadAtLeast(name, job, warmupRequests);
  callgrind(pid, '--zero');
  const requests = await loadAtLeast(name, job, countedRequests);
  callgrind(pid, '--dump=measured');
  let main = 0;
  let all = 0;
  for (const file of readdirSync(outDir).filter((file) => file.startsWith(`${name}.${pid}.`))) {
    const text = readFileSync(path.join(outDir, file), 'utf8');
    if (!text.includes('Trigger: dump measured')) continue;
    const total = Number(/^totals: (\d+)/m.exec(text)?.[1] ?? 0);
    all += total;
    if (/^thread: 1$/m.test(text)) main = total;
  }
  return { requests, main: main / requests, all: all / requests };
}

async function main(): Promise<void> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'gw-instructions-'));
  const adminKey = `gw-bench-${randomBytes(16).toString('hex')}`;
  try {
    const upstreamPort = await ready(
      fork(path.join(here, 'bench', 'fake-upstream.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }),
      'fake-upstream',
    );
    process.stderr.write('bench-instructions: starting gw and the bare proxy under callgrind (a minute or two) ...\n');
    const [proxy, gw] = await Promise.all([
      underCallgrind('bare-proxy', [String(upstreamPort)], {}, outDir),
      underCallgrind('gw-server', [], gwEnv(outDir, adminKey), outDir),
    ]);
    process.stderr.write(`bench-instructions: ${warmupRequests} requests to warm up, then at least ${countedRequests} counted, ${connections} connections each ...\n`);
    // Both at once: callgrind counts instructions, which sharing the machine does not change.
    const [bare, chat] = await Promise.all([
      count('bare-proxy', proxy.pid, { url: `http://127.0.0.1:${proxy.port}${operation.path}`, headers: PLAIN_HEADERS, body: operation.body, connections }, outDir),
      count('gw-server', gw.pid, { url: `http://127.0.0.1:${gw.port}${operation.path}`, headers: gwHeaders(adminKey, upstreamPort), body: operation.body, connections }, outDir),
    ]);
    const k = (n: number) => `${(n / 1000).toFixed(0)}k`;
    console.log(`\n${operation.path}\ntarget      requests  instructions/request: main thread  all threads`);
    console.log(`bare proxy  ${String(bare.requests).padEnd(8)}  ${k(bare.main).padStart(33)}  ${k(bare.all).padStart(11)}`);
    console.log(`gw          ${String(chat.requests).padEnd(8)}  ${k(chat.main).padStart(33)}  ${k(chat.all).padStart(11)}`);
    console.log(`\nbare proxy / gw, main thread: ${((100 * bare.main) / chat.main).toFixed(1)}%  all threads: ${((100 * bare.all) / chat.all).toFixed(1)}%`);
  } finally {
    await stopAll(children);
    rmSync(outDir, { recursive: true, force: true });
  }
}


main().catch((error: unknown) => {
  console.error('bench-instructions failed:', error);
  process.exitCode = 1;
});
