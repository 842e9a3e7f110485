/*
 * `make bench-instructions`: CPU instructions per call of each of gw's hot operations, counted on
 * gw's main thread (the event loop, which caps a process's throughput) by valgrind's callgrind, and
 * the bare Node proxy's chat call for scale. Wall-clock figures on this shared machine move by
 * 10-15% from one run to the next; the main thread's instruction count repeats within about 1%, so
 * it tells whether a change made a path cheaper, and CI holds it to a budget:
 *
 *   --check (`make bench-instructions-check`, a CI step): fails when an operation costs more than
 *     its budget in scripts/instruction-budget.json by more than the file's tolerance (3%), and when
 *     the budget file itself raised an operation's budget without changing its reason (rules in
 *     bench/instruction-budget.ts, compared with git as baseRevision says). No bare proxy, to keep the step short.
 *   --write: stores the measured counts in the budget file (reasons kept: edit them by hand).
 *
 *   BENCH_WARMUP_REQUESTS (100): calls of each operation before counting, so the JIT has settled
 *   BENCH_REQUESTS (100): calls counted per window (two windows per operation, the cheaper one kept); BENCH_CONNECTIONS (1) in flight at once (one
 *     after the other: with several, how the calls interleave on gw's event loop moves with timing)
 *   BENCH_ONLY: comma-separated operation names to count alone (e.g. `chat,embeddings`; --write then stores only those)
 *   BENCH_READY_SECONDS (900): how long gw may take to start under callgrind (a loaded machine makes it slow)
 *
 * One gw process, compiled from dist/ (the make targets build first), serves every operation in
 * turn under callgrind; the fake upstream, the fake MCP server and the calls themselves run normally.
 * Callgrind runs a program about fifty times slower. The counts depend on the warm-up and counted
 * numbers, so the budget holds for the defaults. What keeps them repeatable (COUNTING_FLAGS,
 * COUNTING_ENV, settle) is in docs/performance.md, "A CPU budget for CI".
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Pool } from 'undici';
import type { SettledMessage } from './bench/child-ipc.js';
import { baseRevision, overBudget, parseBudget, raisesWithoutReason, type Budget } from './bench/instruction-budget.js';
import { registerMcp } from './bench/mcp-latency.js';
import {
  BENCH_PROMPT,
  CHAT_BODY,
  EMBEDDINGS_BODY,
  PLAIN_HEADERS,
  PROMPT_BODY,
  RESPONSES_BODY,
  STREAM_BODY,
  gwEnv,
  gwHeaders,
  nodeFlags,
  readyPort,
  savePrompt,
  stopAll,
} from './bench/processes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const budgetFile = path.join(here, 'instruction-budget.json');
const warmupCalls = Number(process.env.BENCH_WARMUP_REQUESTS ?? 100);
const countedCalls = Number(process.env.BENCH_REQUESTS ?? 100);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 1);
const readySeconds = Number(process.env.BENCH_READY_SECONDS ?? 900);
const only = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
const check = process.argv.includes('--check');
const write = process.argv.includes('--write');

const children: ChildProcess[] = [];

/** One call of an operation; throws when the answer is not the working path's. */
type Call = () => Promise<void>;

interface Operation {
  name: string;
  /** Set up once (a session, a saved prompt), then the call to count. */
  prepare: () => Promise<Call>;
}

async function withTimeout<T>(promise: Promise<T>, seconds: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${seconds} s`)), seconds * 1000);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A young generation (64 MB) larger than any window allocates (about 10 MB), and no scavenge
 * started early by a task: a window that starts on a collected heap holds no garbage collection.
 * What a path allocates, and so the collections it costs, is reported beside its count (KB
 * allocated per call); a window that held a collection fails the check.
 */
const NO_GC_IN_A_WINDOW = ['--min-semi-space-size=64', '--max-semi-space-size=64', '--no-minor-gc-task'];

/**
 * Every function runs as baseline (Sparkplug) code from its first call, and no optimising compiler
 * (Maglev, Turbofan) runs. With them, windows after 300 calls of the same operation still held 20
 * to 130 million instructions of Turbofan compiling (callgrind's dumps: v8::internal::compiler),
 * depending on which functions crossed a tier-up threshold in that window, and counts of the same
 * build moved by up to 50% from window to window. At baseline tier they repeat within about 1%.
 * The count is then the work the path asks of the machine, not what Turbofan makes of it: an added
 * step shows, an optimisation that only Turbofan would find does not.
 */
const BASELINE_TIER_ONLY = ['--max-opt=1', '--always-sparkplug'];

/**
 * V8 flags for every counted process, so that the same calls cost the same instructions run after
 * run: work V8 would do on a background thread is done on the main thread at points set by the work
 * done (--single-threaded), no GC is started by a timer (--no-memory-reducer), Math.random and V8's
 * hash seeds are fixed (--random-seed), and the heap is collected before each window (--expose-gc,
 * see `count`).
 */
const COUNTING_FLAGS = ['--single-threaded', '--no-memory-reducer', '--random-seed=1', '--expose-gc', ...NO_GC_IN_A_WINDOW, ...BASELINE_TIER_ONLY];

/**
 * gw's settings in the count: timers that fire with wall-clock time (which callgrind's slowdown and
 * the machine's load stretch) must not put a varying amount of work into the window. The request
 * log is written when a batch of 100 is full (GW_LOG_BATCH_SIZE, pinned here: the default, 500,
 * would put a write in one window of 100 calls out of five), never by its flush timer, so each
 * window holds one write; the job queue does not poll during it.
 */
const COUNTING_ENV = { GW_LOG_BATCH_SIZE: '100', GW_LOG_FLUSH_INTERVAL_MS: '60000', GW_JOBS_POLL_MS: '60000' };

/**
 * A compiled bench server under callgrind, one count per thread: --smc-check=all-non-file because V8
 * writes the code it runs (into anonymous memory); --instr-atstart=no leaves boot uncounted, which
 * makes it several times faster (counting starts with the first operation's warm-up).
 */
async function underCallgrind(name: string, args: string[], env: Record<string, string>, outDir: string): Promise<{ port: number; pid: number; child: ChildProcess }> {
  const child = fork(path.resolve('dist/scripts/bench', `${name}.js`), args, {
    execPath: 'valgrind',
    execArgv: ['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${path.join(outDir, name)}.%p`, process.execPath, ...nodeFlags(), ...COUNTING_FLAGS],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  children.push(child);
  return { port: await withTimeout(readyPort(child, name), readySeconds, `starting ${name} under callgrind`), pid: child.pid!, child };
}

function callgrind(pid: number, ...command: string[]): void {
  execFileSync('callgrind_control', [...command, String(pid)], { stdio: 'ignore' });
}

/** An HTTP POST made `calls` times, `connections` at once, each answered 2xx (and `expect` holding). */
function post(pool: Pool, url: string, headers: Record<string, string>, body: string, expect?: (headers: Record<string, unknown>) => string | undefined): Call {
  const target = new URL(url);
  const once = async () => {
    const answer = await pool.request({ method: 'POST', path: target.pathname, headers, body });
    return { answer, text: await answer.body.text() };
  };
  return async () => {
    let { answer, text } = await once();
    // gw found its kept-alive socket to the upstream closed as it reused it (a race callgrind's
    // slowness makes likelier): the call is made again, as a client would.
    if (answer.statusCode === 502 && text.includes('upstream_unreachable')) ({ answer, text } = await once());
    if (answer.statusCode < 200 || answer.statusCode > 299) throw new Error(`${url} answered ${answer.statusCode}: ${text.slice(0, 300)}`);
    const wrong = expect?.(answer.headers);
    if (wrong) throw new Error(`${url}: ${wrong}`);
  };
}

async function repeat(call: Call, calls: number, parallel: number): Promise<void> {
  let left = calls;
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      await call();
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, calls) }, worker));
}

/** Main-thread and all-thread instructions per call, from the dump named `trigger` (one file per thread). */
function readDump(outDir: string, name: string, pid: number, trigger: string, calls: number): { main: number; all: number } {
  let main = 0;
  let all = 0;
  for (const file of readdirSync(outDir).filter((file) => file.startsWith(`${name}.${pid}.`))) {
    const text = readFileSync(path.join(outDir, file), 'utf8');
    if (!text.includes(`Trigger: dump ${trigger}\n`)) continue;
    const total = Number(/^totals: (\d+)/m.exec(text)?.[1] ?? 0);
    all += total;
    if (/^thread: 1$/m.test(text)) main = total;
    rmSync(path.join(outDir, file));
  }
  return { main: main / calls, all: all / calls };
}

/**
 * Waits until the counted process has finished what the last call left behind (its log line, its
 * entry in the request log's queue, closing promises): a pause, then a message it answers once the
 * work queued before it is done, collecting garbage first when `collect` (child-ipc.ts: only before
 * the window; a full GC at its end would be counted).
 */
async function settle(server: { child: ChildProcess }, collect: boolean): Promise<SettledMessage> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  return new Promise<SettledMessage>((resolve) => {
    const settled = (message: Partial<SettledMessage>) => {
      if (!message.settled) return;
      server.child.off('message', settled);
      resolve(message as SettledMessage);
    };
    server.child.on('message', settled);
    server.child.send(collect ? { settle: true, collect: true } : { settle: true });
  });
}

/**
 * Windows of `countedCalls` counted per operation, the cheapest one reported: V8 still optimises
 * (or deoptimises) a function now and then after the warm-up, and a window that holds such a
 * compile costs several percent more; the cheapest window is the operation's steady cost.
 */
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 2);

/** Calls of every operation before any is counted (see main). */
const PREWARM_CALLS = 50;

/** One operation's count: instructions per call (gw's main thread, all its threads), KB allocated per call, collections in the window. */
interface Counted {
  main: number;
  all: number;
  allocatedKb: number;
  collections: number;
}

/** Warm up, then count WINDOWS windows of `countedCalls` calls, `parallel` at once, each end of a window settled. */
async function count(server: { pid: number; child: ChildProcess }, name: string, outDir: string, op: string, call: Call, parallel: number): Promise<Counted> {
  callgrind(server.pid, '--instr=on');
  await repeat(call, warmupCalls, parallel);
  let cheapest: Counted | undefined;
  for (let window = 1; window <= WINDOWS; window++) {
    await settle(server, true);
    callgrind(server.pid, '--zero');
    await repeat(call, countedCalls, parallel);
    const { collections = 0, allocated = 0 } = await settle(server, false);
    const trigger = `${op}#${window}`;
    callgrind(server.pid, `--dump=${trigger}`);
    const counted = { ...readDump(outDir, name, server.pid, trigger, countedCalls), allocatedKb: allocated / 1024 / countedCalls, collections };
    process.stderr.write(`bench-instructions: ${op} window ${window}: ${Math.round(counted.main)} per call, ${collections} garbage collections\n`);
    if (!cheapest || counted.main < cheapest.main) cheapest = counted;
  }
  return cheapest!;
}

/** An MCP session through gw; each call is one tools/call (sequential: the SDK client's way). */
async function mcpCall(url: string, adminKey: string): Promise<Call> {
  const client = new Client({ name: 'gw-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-gw-api-key': adminKey } } }));
  let i = 0;
  return async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: `call ${(i += 1)}` } });
    if (result.isError) throw new Error(`tools/call failed: ${JSON.stringify(result)}`);
  };
}

function startFake(file: string): Promise<number> {
  const child = fork(path.join(here, 'bench', file), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  children.push(child);
  return readyPort(child, file);
}

/** The operations CI holds to a budget, in the order they run (chat first: later ones share its warmed code). */
function operations(gwUrl: string, pool: Pool, adminKey: string, upstreamPort: number, mcpPort: number): Operation[] {
  const headers = gwHeaders(adminKey, upstreamPort);
  const config = JSON.stringify({ provider: 'openai', api_key: 'sk-bench', custom_host: `http://127.0.0.1:${upstreamPort}/v1`, cache: { mode: 'simple', max_age: 3600 } });
  const cacheHeaders = { 'content-type': 'application/json', 'x-gw-api-key': adminKey, 'x-gw-config': config };
  const hit = (answer: Record<string, unknown>) => (answer['x-gw-cache-status'] === 'HIT' ? undefined : `x-gw-cache-status ${String(answer['x-gw-cache-status'])}, not HIT`);
  const http = (name: string, route: string, body: string, h = headers, expect?: typeof hit): Operation => ({ name, prepare: async () => post(pool, `${gwUrl}${route}`, h, body, expect) });
  return [
    http('chat', '/v1/chat/completions', CHAT_BODY),
    http('chat streamed', '/v1/chat/completions', STREAM_BODY),
    http('embeddings', '/v1/embeddings', EMBEDDINGS_BODY),
    http('responses', '/v1/responses', RESPONSES_BODY),
    http('prompt completion', `/v1/prompts/${BENCH_PROMPT.slug}/completions`, PROMPT_BODY),
    {
      name: 'chat cache hit',
      prepare: async () => {
        await post(pool, `${gwUrl}/v1/chat/completions`, cacheHeaders, CHAT_BODY)(); // the miss that fills the cache
        return post(pool, `${gwUrl}/v1/chat/completions`, cacheHeaders, CHAT_BODY, hit);
      },
    },
    { name: 'mcp tools/call', prepare: async () => mcpCall(await registerMcp(gwUrl, adminKey, `http://127.0.0.1:${mcpPort}/mcp`), adminKey) },
  ];
}

/** The budget file as committed before this change (see baseRevision), or undefined when git has none to compare with. */
function earlierBudget(): Budget | undefined {
  const relative = path.relative(process.cwd(), budgetFile);
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const edited = git('status', '--porcelain', '--', relative).trim() !== '';
    let hasParent = true;
    try {
      git('rev-parse', '--verify', '--quiet', 'HEAD~1^{commit}');
    } catch {
      hasParent = false; // a single-commit (shallow) clone, or the first commit
    }
    const base = baseRevision(edited, hasParent);
    return base === undefined ? undefined : parseBudget(git('show', `${base}:${relative}`));
  } catch {
    return undefined; // not a git checkout, or the file did not exist in that commit
  }
}

async function main(): Promise<void> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'gw-instructions-'));
  const adminKey = `gw-bench-${randomBytes(16).toString('hex')}`;
  const budget = parseBudget(readFileSync(budgetFile, 'utf8'));
  try {
    const [upstreamPort, mcpPort] = await Promise.all([startFake('fake-upstream.ts'), startFake('fake-mcp.ts')]);
    const started = Date.now();
    process.stderr.write(`bench-instructions: starting gw${check ? '' : ' and the bare proxy'} under callgrind ...\n`);
    const [gw, proxy] = await Promise.all([
      underCallgrind('gw-server', [], { ...gwEnv(outDir, adminKey), ...COUNTING_ENV }, outDir),
      check ? undefined : underCallgrind('bare-proxy', [String(upstreamPort)], {}, outDir),
    ]);
    process.stderr.write(`bench-instructions: started in ${((Date.now() - started) / 1000).toFixed(0)} s; ${warmupCalls} calls to warm up, then ${countedCalls} counted, per operation\n`);
    const gwUrl = `http://127.0.0.1:${gw.port}`;
    const gwPool = new Pool(gwUrl, { connections });
    await savePrompt(gw.port, adminKey);
    // The bare proxy's chat call, counted alongside gw's operations (callgrind counts, so sharing the machine changes nothing).
    const bare = proxy
      ? (async () => {
          const proxyPool = new Pool(`http://127.0.0.1:${proxy.port}`, { connections });
          const counted = await count(proxy, 'bare-proxy', outDir, 'chat', post(proxyPool, `http://127.0.0.1:${proxy.port}/v1/chat/completions`, PLAIN_HEADERS, CHAT_BODY), connections);
          await proxyPool.close();
          return counted;
        })()
      : undefined;
    const measured: Record<string, Counted> = {};
    const selected: Array<{ name: string; call: Call; parallel: number }> = [];
    for (const op of operations(gwUrl, gwPool, adminKey, upstreamPort, mcpPort).filter((op) => only.length === 0 || only.includes(op.name)))
      selected.push({ name: op.name, call: await op.prepare(), parallel: op.name.startsWith('mcp') ? 1 : connections });
    // Every operation goes through first, uncounted (instrumentation is still off): the code the
    // operations share is compiled before any window, so the first operation counted (chat) no
    // longer carries that JIT work, which moved its count by several percent from run to run.
    for (const { call, parallel } of selected) await repeat(call, PREWARM_CALLS, parallel);
    for (const { name, call, parallel } of selected) {
      const opStarted = Date.now();
      const counted = (measured[name] = await count(gw, 'gw-server', outDir, name.replaceAll(/\W/g, '-'), call, parallel));
      process.stderr.write(`bench-instructions: ${name}: ${Math.round(counted.main)} main-thread instructions per call (${((Date.now() - opStarted) / 1000).toFixed(0)} s)\n`);
    }
    await gwPool.close();
    const k = (n: number) => `${(n / 1000).toFixed(0)}k`;
    console.log('\noperation           main thread  all threads  KB allocated  budget   main / budget');
    for (const [name, { main, all, allocatedKb, collections }] of Object.entries(measured)) {
      const limit = budget.operations[name]?.instructions;
      const share = limit ? `${((100 * main) / limit).toFixed(1)}%` : 'no budget';
      const gc = collections > 0 ? `  (${collections} garbage collections in the window)` : '';
      console.log(`${name.padEnd(18)}  ${k(main).padStart(11)}  ${k(all).padStart(11)}  ${allocatedKb.toFixed(0).padStart(12)}  ${(limit ? k(limit) : '-').padStart(6)}   ${share}${gc}`);
    }
    if (bare) {
      const proxyChat = await bare;
      console.log(`bare proxy chat     ${k(proxyChat.main).padStart(11)}  ${k(proxyChat.all).padStart(11)}`);
      console.log(`\nbare proxy / gw chat, main thread: ${((100 * proxyChat.main) / measured.chat!.main).toFixed(1)}%`);
    }
    if (write) {
      for (const [name, { main }] of Object.entries(measured))
        budget.operations[name] = { instructions: Math.ceil(main / 1000) * 1000, reason: budget.operations[name]?.reason ?? 'first measured' };
      writeFileSync(budgetFile, `${JSON.stringify({ ...budget, warmupCalls, countedCalls }, null, 2)}\n`);
      console.log(`\nwrote ${path.relative(process.cwd(), budgetFile)}: say in each raised operation's reason why it costs more`);
    }
    if (check) {
      const before = earlierBudget();
      if (!before) console.log('budget: no earlier budget file in git history to compare with; raises not checked');
      const main = Object.fromEntries(Object.entries(measured).map(([name, counted]) => [name, counted.main]));
      const collected = Object.entries(measured)
        .filter(([, counted]) => counted.collections > 0)
        .map(([name, counted]) => `${name}: its window held ${counted.collections} garbage collections, so its count does not repeat (NO_GC_IN_A_WINDOW's young generation is too small for it)`);
      const failures = [...(before ? raisesWithoutReason(before, budget) : []), ...overBudget(budget, main, { warmupCalls, countedCalls }), ...collected];
      if (failures.length > 0) {
        for (const failure of failures) console.error(`budget: ${failure}`);
        process.exitCode = 1;
      } else console.log('\nbudget: every operation within its budget');
    }
  } finally {
    await stopAll(children);
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error('bench-instructions failed:', error);
  process.exitCode = 1;
});
