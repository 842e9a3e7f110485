/*
 * `make bench`: gw's chat path against the bare upstream and a bare Node proxy, in one run,
 * each server and the load generator in its own process, all on 127.0.0.1; then MCP tools/call
 * through gw against the same call made directly (scripts/bench/mcp-latency.ts), and A2A
 * SendMessage the same way (scripts/bench/a2a-latency.ts), and streamed Responses calls over HTTP
 * against the same calls on one WebSocket (scripts/bench/responses-ws-latency.ts); then an assistant
 * run of one model turn against the same turn as a chat call (scripts/bench/run-latency.ts). The
 * `gw responses` row sends a Responses API call that gw translates to the chat row's request; the
 * embeddings rows send one embeddings call straight to the upstream, through the bare proxy and through gw;
 * the messages rows send one Anthropic Messages call the same three ways (gw passing it to an
 * Anthropic upstream), and through gw translated to the chat rows' OpenAI upstream.
 *
 * The latency rows (scripts/bench/delayed-latency.ts) send the chat call with 24 connections to an
 * upstream answering after 20 ms and with 200 to one answering after 500 ms, straight, through a bare
 * proxy and through gw.
 *
 *   BENCH_SECONDS (default 8), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (32,4), BENCH_DELAYED (1; 0 skips the latency rows, 20 or 500 runs one),
 *   BENCH_OWN_WORK (1: the latency rows also time gw's own part of each call, with AsyncLocalStorage in gw)
 *   BENCH_WORKERS (1; 0 skips): gw started as `make run` does with GW_WORKERS=1, then 2 (scripts/bench/workers-rows.ts);
 *   BENCH_PORTKEY=<dir>: also the Portkey gateway installed in <dir> (outside gw's tree), same load, same run.
 *   BENCH_ONLY: comma-separated target names to run alone (e.g. `upstream embeddings,gw embeddings`).
 *   BENCH_ROUNDS (1): repeat the whole sequence and keep each target's best round, which
 *   tames a machine that other work keeps busy (rounds interleave, so all targets see it alike).
 *   BENCH_PROFILE=1 records a CPU profile of the gw process during each row it serves
 *   (data/bench-profile/<row>-<connections>.cpuprofile, e.g. gw-embeddings-4) and prints its top costs; BENCH_PROFILE=alloc
 *   records sampled allocations instead (.heapprofile), for what keeps the garbage collector busy.
 */
import { fork, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CpuMessage } from './bench/child-ipc.js';
import type { LoadResult } from './bench/load-generator.js';
import {
  ANTHROPIC_HEADERS,
  BENCH_PROMPT,
  CHAT_BODY,
  EMBEDDINGS_BODY,
  MESSAGES_BODY,
  PLAIN_HEADERS,
  PROMPT_BODY,
  RESPONSES_BODY,
  TRANSLATED_MESSAGES_BODY,
  gwAnthropicHeaders,
  gwEnv,
  gwHeaders,
  nodeFlags,
  profiler,
  readyPort,
  runLoad,
  savePrompt,
  stopAll,
} from './bench/processes.js';
import { summarise, summariseAllocations } from './bench/profile-summary.js';
import { measureMcp, reportMcp } from './bench/mcp-latency.js';
import { measureA2a, reportA2a } from './bench/a2a-latency.js';
import { measureRuns, reportRuns } from './bench/run-latency.js';
import { measureResponsesWs, reportResponsesWs } from './bench/responses-ws-latency.js';
import { measureWorkers, reportWorkers } from './bench/workers-rows.js';
import { measureDelayed, reportDelayed, type DelayedResult } from './bench/delayed-latency.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const connectionCounts = (process.env.BENCH_CONNECTIONS ?? '32,4').split(',').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
// BENCH_MCP_CALLS (default 1000, 0 skips): sequential tools/call per path for the MCP row.
const mcpCalls = Number(process.env.BENCH_MCP_CALLS ?? 1000);
// BENCH_A2A_CALLS (default 1000, 0 skips): sequential SendMessage calls per path for the A2A row.
const a2aCalls = Number(process.env.BENCH_A2A_CALLS ?? 1000);
// BENCH_RESPONSES_WS_CALLS (default 1000, 0 skips): sequential streamed Responses calls over HTTP and over a WebSocket.
const responsesWsCalls = Number(process.env.BENCH_RESPONSES_WS_CALLS ?? 1000);
// BENCH_RUN_CALLS (default 500, 0 skips): sequential turns per way for the assistant-run row.
const runCalls = Number(process.env.BENCH_RUN_CALLS ?? 500);
// BENCH_DELAYED (default 1, 0 skips): the latency rows, 24 connections to an upstream answering after
// 20 ms and 200 to one answering after 500 ms, straight, through a bare proxy and through gw
// (scripts/bench/delayed-latency.ts); `20` or `500` runs that row alone.
const DELAYED_SHAPES = [{ delayMs: 20, connections: 24 }, { delayMs: 500, connections: 200 }];
const delayedShapes = ['1', undefined].includes(process.env.BENCH_DELAYED)
  ? DELAYED_SHAPES
  : DELAYED_SHAPES.filter((shape) => process.env.BENCH_DELAYED!.split(',').includes(String(shape.delayMs)));
// BENCH_ONLY (comma-separated target names, e.g. "upstream embeddings,gw embeddings"): run just those rows.
const only = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
// BENCH_WORKERS (default 1, 0 skips): gw with GW_WORKERS=1 and 2 as whole process trees; BENCH_PORTKEY=<dir> adds the Portkey gateway installed there.
const workersRows = process.env.BENCH_WORKERS !== '0';
const portkeyDir = process.env.BENCH_PORTKEY || undefined;
const profile = process.env.BENCH_PROFILE === '1' || process.env.BENCH_PROFILE === 'alloc';
const profileKind = process.env.BENCH_PROFILE === 'alloc' ? 'heapprofile' : 'cpuprofile';
const profileDir = path.resolve('data/bench-profile');

const children: ChildProcess[] = [];

interface Started {
  port: number;
  child: ChildProcess;
}

/**
 * Starts a bench server; gw and the bare proxy run compiled from dist/ (`make bench` builds first)
 * with the Node flags `make run` gives gw (GW_NODE_FLAGS, from the Makefile).
 */
function start(file: string, args: string[] = [], env: Record<string, string> = {}): Promise<Started> {
  const built = file.endsWith('.js');
  const child = fork(built ? path.resolve('dist/scripts/bench', file) : path.join(here, 'bench', file), args, {
    execArgv: built ? nodeFlags() : ['--import', 'tsx'],
    env: { ...process.env, BENCH_LOOP_DELAY: '1', ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(child);
  return readyPort(child, file).then((port) => ({ port, child }));
}

/** `timeCalls` turns the timing of calls inside gw on or off from this message on (scripts/bench/call-phases.ts). */
function cpuMicros(child: ChildProcess, timeCalls?: boolean): Promise<CpuMessage> {
  return new Promise((resolve) => {
    const listen = (message: Partial<CpuMessage>) => {
      if (message.cpuMicros === undefined) return;
      child.off('message', listen);
      resolve(message as CpuMessage);
    };
    child.on('message', listen);
    child.send({ cpu: true, timeCalls });
  });
}


async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-'));
  const adminKey = `gw-bench-${randomBytes(16).toString('hex')}`;
  try {
    const upstream = await start('fake-upstream.ts');
    const upstreamPort = upstream.port;
    const proxy = await start('bare-proxy.js', [String(upstreamPort)]);
    const proxyPort = proxy.port;
    const gw = await start('gw-server.js', [], gwEnv(dataDir, adminKey));
    const gwPort = gw.port;
    await savePrompt(gwPort, adminKey);

    const targets = [
      { name: 'upstream', server: upstream.child, url: `http://127.0.0.1:${upstreamPort}/v1/chat/completions`, headers: PLAIN_HEADERS },
      { name: 'bare proxy', server: proxy.child, url: `http://127.0.0.1:${proxyPort}/v1/chat/completions`, headers: PLAIN_HEADERS },
      { name: 'gw', server: gw.child, url: `http://127.0.0.1:${gwPort}/v1/chat/completions`, headers: gwHeaders(adminKey, upstreamPort) },
      // The same chat call, sent as a saved prompt rendered by gw (item 8 of issue 17).
      { name: 'gw prompt', server: gw.child, url: `http://127.0.0.1:${gwPort}/v1/prompts/${BENCH_PROMPT.slug}/completions`, headers: gwHeaders(adminKey, upstreamPort), body: PROMPT_BODY },
      // The same chat call, sent as a Responses API call and translated by gw (issue 20).
      { name: 'gw responses', server: gw.child, url: `http://127.0.0.1:${gwPort}/v1/responses`, headers: gwHeaders(adminKey, upstreamPort), body: RESPONSES_BODY },
      // POST /v1/messages (issue 33): to an Anthropic upstream straight, through the bare proxy and
      // through gw (body passed as it came); and through gw translated to the chat rows' OpenAI upstream.
      { name: 'upstream messages', server: upstream.child, url: `http://127.0.0.1:${upstreamPort}/v1/messages`, headers: ANTHROPIC_HEADERS, body: MESSAGES_BODY },
      { name: 'bare proxy messages', server: proxy.child, url: `http://127.0.0.1:${proxyPort}/v1/messages`, headers: ANTHROPIC_HEADERS, body: MESSAGES_BODY },
      { name: 'gw messages', server: gw.child, url: `http://127.0.0.1:${gwPort}/v1/messages`, headers: gwAnthropicHeaders(adminKey, upstreamPort), body: MESSAGES_BODY },
      { name: 'gw messages translated', server: gw.child, url: `http://127.0.0.1:${gwPort}/v1/messages`, headers: gwHeaders(adminKey, upstreamPort), body: TRANSLATED_MESSAGES_BODY },
      // POST /v1/embeddings through gw against the same request sent straight to the upstream (issue 20).
      { name: 'upstream embeddings', server: upstream.child, url: `http://127.0.0.1:${upstreamPort}/v1/embeddings`, headers: PLAIN_HEADERS, body: EMBEDDINGS_BODY },
      { name: 'bare proxy embeddings', server: proxy.child, url: `http://127.0.0.1:${proxyPort}/v1/embeddings`, headers: PLAIN_HEADERS, body: EMBEDDINGS_BODY },
      { name: 'gw embeddings', server: gw.child, url: `http://127.0.0.1:${gwPort}/v1/embeddings`, headers: gwHeaders(adminKey, upstreamPort), body: EMBEDDINGS_BODY },
    ].filter((target) => only.length === 0 || only.includes(target.name));

    const results = new Map<string, LoadResult>();
    const profiles: string[] = [];
    const cpu = new Map<string, number>();
    const loop = new Map<string, number>();
    const gc = new Map<string, number>();
    let gwRequests = 0;
    // Tool calls through gw are logged too (warm-up and timed).
    let gwMcpCalls = 0;
    for (let round = 1; round <= rounds; round += 1) {
      for (const connections of connectionCounts) {
        for (const target of targets) {
          const key = `${target.name}@${connections}`;
          process.stderr.write(`bench: round ${round}/${rounds}, ${target.name}, ${connections} connections, ${warmupSeconds}s warm-up + ${seconds}s ...\n`);
          // Every row gw serves gets its own profile (gw, gw embeddings, ...), named after the row.
          const profiled = profile && target.server === gw.child && round === rounds;
          if (profiled) await profiler(gw.child, { profile: 'start' });
          const cpuBefore = await cpuMicros(target.server);
          const { url, headers } = target;
          const body = 'body' in target && target.body ? target.body : CHAT_BODY;
          const result = await runLoad({ url, headers, body, connections, warmupMs: warmupSeconds * 1000, durationMs: seconds * 1000 });
          const cpuAfter = await cpuMicros(target.server);
          const cpuPerRequest = (cpuAfter.cpuMicros - cpuBefore.cpuMicros) / result.allRequests;
          const loopPerRequest = (cpuAfter.loopMicros - cpuBefore.loopMicros) / result.allRequests;
          const gcPerRequest = (cpuAfter.gcMicros - cpuBefore.gcMicros) / result.allRequests;
          if (target.server === gw.child) gwRequests += result.allRequests;
          if (profiled) {
            mkdirSync(profileDir, { recursive: true });
            const file = path.join(profileDir, `${target.name.replaceAll(' ', '-')}-${connections}.${profileKind}`);
            await profiler(gw.child, { profile: 'stop', file });
            profiles.push(file);
          }
          const best = results.get(key);
          if (!best || result.requestsPerSecond > best.requestsPerSecond) results.set(key, result);
          cpu.set(key, Math.min(cpu.get(key) ?? Infinity, cpuPerRequest));
          loop.set(key, Math.min(loop.get(key) ?? Infinity, loopPerRequest));
          gc.set(key, Math.min(gc.get(key) ?? Infinity, gcPerRequest));
        }
      }
    }
    report(results, { cpu, loop, gc }, targets.map((target) => target.name));
    const promptWork = await promptWorkMicros(gw.child);
    console.log(`prompt resolve + render, CPU per call in gw (cache hit, ${BENCH_PROMPT.slug}): ${promptWork.toFixed(1)} us`);
    // The MCP and A2A rows: gw's CPU time per call through it beside the latencies (a figure a busy
    // machine inflates far less than wall-clock time), and a profile each with BENCH_PROFILE
    // (data/bench-profile/mcp.cpuprofile, a2a.cpuprofile).
    const gwCpuMicros = async () => (await cpuMicros(gw.child)).cpuMicros;
    const profiledRow = async <T>(name: string, measure: () => Promise<T>): Promise<T> => {
      if (!profile) return measure();
      await profiler(gw.child, { profile: 'start' });
      try {
        return await measure();
      } finally {
        mkdirSync(profileDir, { recursive: true });
        const file = path.join(profileDir, `${name}.${profileKind}`);
        await profiler(gw.child, { profile: 'stop', file });
        profiles.push(file);
      }
    };
    if (mcpCalls > 0) {
      const mcp = await start('fake-mcp.ts');
      const options = { warmup: Math.min(100, mcpCalls), calls: mcpCalls, gwCpuMicros };
      reportMcp(await profiledRow('mcp', () => measureMcp(`http://127.0.0.1:${gwPort}`, adminKey, `http://127.0.0.1:${mcp.port}/mcp`, options)));
      gwMcpCalls = options.warmup + mcpCalls;
    }
    let gwA2aCalls = 0;
    if (a2aCalls > 0) {
      const agent = await start('fake-a2a.ts');
      const options = { warmup: Math.min(100, a2aCalls), calls: a2aCalls, gwCpuMicros };
      reportA2a(await profiledRow('a2a', () => measureA2a(`http://127.0.0.1:${gwPort}`, adminKey, `http://127.0.0.1:${agent.port}`, options)));
      gwA2aCalls = options.warmup + a2aCalls;
    }
    let gwResponsesWsCalls = 0;
    if (responsesWsCalls > 0) {
      const warmup = Math.min(100, responsesWsCalls);
      const { 'content-type': _json, authorization: _key, ...socketHeaders } = gwHeaders(adminKey, upstreamPort);
      reportResponsesWs(await measureResponsesWs(`http://127.0.0.1:${gwPort}`, socketHeaders, { warmup, calls: responsesWsCalls }));
      gwResponsesWsCalls = 2 * (warmup + responsesWsCalls);
    }
    let gwDelayedRequests = 0;
    if (delayedShapes.length) {
      const delayed: DelayedResult[] = [];
      for (const shape of delayedShapes) {
        process.stderr.write(`bench: latency row, ${shape.connections} connections to an upstream answering after ${shape.delayMs} ms ...\n`);
        const slow = await start('fake-upstream.ts', [String(shape.delayMs)]);
        const slowProxy = await start('bare-proxy.js', [String(slow.port)]);
        const ports = { upstream: slow.port, proxy: slowProxy.port, gw: gwPort };
        // Warm-up long enough for every connection to make several calls at 500 ms.
        const timing = { warmupMs: Math.max(warmupSeconds * 1000, 8 * shape.delayMs), durationMs: seconds * 1000 };
        const result = await profiledRow(`delayed-${shape.delayMs}`, () => measureDelayed(shape, ports, adminKey, timing, (timeCalls) => cpuMicros(gw.child, timeCalls)));
        delayed.push(result);
        gwDelayedRequests += result.gw.allRequests;
      }
      reportDelayed(delayed);
      console.log(`load average: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    }
    let gwRunTurns = 0;
    if (runCalls > 0) {
      const measured = await measureRuns(`http://127.0.0.1:${gwPort}`, adminKey, upstreamPort, {
        calls: runCalls,
        warmup: Math.min(100, runCalls),
        concurrency: 8,
        seconds,
        pollMs: 2,
        gwCpuMicros: async () => (await cpuMicros(gw.child)).cpuMicros,
      });
      reportRuns(measured);
      gwRunTurns = measured.logged;
    }
    // Last: gw and the bench's other servers above are idle, so these process trees have the cores.
    if (workersRows) {
      const connections = Math.max(...connectionCounts);
      reportWorkers(await measureWorkers({ upstreamPort, connections, warmupMs: warmupSeconds * 1000, durationMs: seconds * 1000, portkeyDir }), connections);
    }
    await stopAll(children);
    reportLogged(dataDir, gwRequests + gwDelayedRequests + gwMcpCalls + gwA2aCalls + gwResponsesWsCalls + gwRunTurns);
    for (const file of profiles) {
      const summary = profileKind === 'heapprofile' ? summariseAllocations(file, 30) : summarise(file, 20);
      console.log(`\ngw profile ${path.relative(process.cwd(), file)} (warm-up included)\n${summary}`);
    }
  } finally {
    await stopAll(children);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Asks gw to time the prompt work alone (gw-server.ts). */
function promptWorkMicros(gw: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const listen = (message: { promptWorkMicros?: number }) => {
      if (message.promptWorkMicros === undefined) return;
      gw.off('message', listen);
      resolve(message.promptWorkMicros);
    };
    gw.on('message', listen);
    gw.send({ promptWork: { address: BENCH_PROMPT.slug, body: JSON.parse(PROMPT_BODY), iterations: 20_000 } });
  });
}

/** gw was measured with request logging on: after its shutdown flush, every request it answered must have its log row. */
function reportLogged(dataDir: string, requests: number): void {
  const db = new Database(path.join(dataDir, 'gw.sqlite'), { readonly: true });
  const { rows } = db.prepare('select count(*) as rows from request_logs').get() as { rows: number };
  db.close();
  console.log(`gw request logs written: ${rows} of ${requests} requests${rows === requests ? '' : '  (MISMATCH: logging did not keep up)'}`);
}

interface PerRequest {
  cpu: Map<string, number>;
  loop: Map<string, number>;
  gc: Map<string, number>;
}

function report(results: Map<string, LoadResult>, { cpu, loop, gc }: PerRequest, names: string[]): void {
  // Event loop busy time per request (wall clock, so a crowded machine inflates it): one thread does
  // all of it, so it caps a process's throughput however many cores are free. GC pauses are part of it.
  const rows = [['target', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'server CPU us/req', 'loop busy us/req', 'GC pause us/req', 'statuses']];
  for (const connections of connectionCounts) {
    for (const name of names) {
      const r = results.get(`${name}@${connections}`)!;
      const statuses = Object.entries(r.statuses).map(([status, count]) => `${status}:${count}`).join(' ');
      const cpuPerRequest = cpu.get(`${name}@${connections}`)!;
      const loopPerRequest = loop.get(`${name}@${connections}`)!;
      const gcPerRequest = gc.get(`${name}@${connections}`)!;
      rows.push([name, String(connections), r.requestsPerSecond.toFixed(0), r.p50Ms.toFixed(3), r.p99Ms.toFixed(3), cpuPerRequest.toFixed(0), loopPerRequest.toFixed(0), gcPerRequest.toFixed(1), statuses]);
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ');
  console.log(`\n${line(rows[0]!)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const row of rows.slice(1)) console.log(line(row));

  console.log('');
  const high = Math.max(...connectionCounts);
  const low = Math.min(...connectionCounts);
  const at = (name: string, connections: number) => results.get(`${name}@${connections}`)!;
  const ratio = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`;
  if (names.includes('gw embeddings') && names.includes('upstream embeddings')) {
    const gwEmbeddings = at('gw embeddings', high);
    console.log(`gw embeddings / upstream embeddings throughput (${high} conns): ${ratio(gwEmbeddings.requestsPerSecond, at('upstream embeddings', high).requestsPerSecond)}`);
    const added = at('gw embeddings', low).p50Ms - at('upstream embeddings', low).p50Ms;
    console.log(`gw embeddings p50 added vs the same request straight to the upstream (${low} conns): ${added.toFixed(3)} ms`);
    // Chat's budget, held the same way: over a bare Node proxy of the same call.
    if (names.includes('bare proxy embeddings')) {
      const overProxy = at('gw embeddings', low).p50Ms - at('bare proxy embeddings', low).p50Ms;
      console.log(`gw embeddings / bare proxy embeddings throughput (${high} conns): ${ratio(gwEmbeddings.requestsPerSecond, at('bare proxy embeddings', high).requestsPerSecond)}`);
      console.log(`gw embeddings p50 overhead vs bare proxy embeddings (${low} conns): ${overProxy.toFixed(3)} ms  (chat's budget: < 1 ms)`);
    }
    if (Object.keys(gwEmbeddings.statuses).some((status) => !status.startsWith('2'))) console.log('note: gw answered non-2xx statuses to embeddings (see the table).');
  }
  if (names.includes('gw messages') && names.includes('bare proxy messages')) {
    const overProxy = at('gw messages', low).p50Ms - at('bare proxy messages', low).p50Ms;
    console.log(`gw messages / bare proxy messages throughput (${high} conns): ${ratio(at('gw messages', high).requestsPerSecond, at('bare proxy messages', high).requestsPerSecond)}`);
    console.log(`gw messages p50 overhead vs bare proxy messages (${low} conns): ${overProxy.toFixed(3)} ms  (chat's budget: < 1 ms)`);
  }
  if (names.includes('gw messages translated') && names.includes('gw')) {
    console.log(`messages translated to chat p50 added vs the chat call through gw (${low} conns): ${(at('gw messages translated', low).p50Ms - at('gw', low).p50Ms).toFixed(3)} ms`);
  }
  if (!['gw', 'bare proxy', 'upstream'].every((name) => names.includes(name))) return;
  const gw = at('gw', high);
  const gwFailed = Object.keys(gw.statuses).some((status) => !status.startsWith('2'));
  console.log(`gw / bare proxy throughput (${high} conns): ${ratio(gw.requestsPerSecond, at('bare proxy', high).requestsPerSecond)}  (target >= 50%)`);
  console.log(`gw / upstream throughput   (${high} conns): ${ratio(gw.requestsPerSecond, at('upstream', high).requestsPerSecond)}`);
  // CPU per request does not depend on what else the machine runs, so it checks the throughput ratio on a busy host.
  const cpuRatio = cpu.get(`bare proxy@${high}`)! / cpu.get(`gw@${high}`)!;
  console.log(`bare proxy / gw CPU per request (${high} conns): ${(100 * cpuRatio).toFixed(1)}%  (the throughput ratio one core each would give)`);
  const overhead = at('gw', low).p50Ms - at('bare proxy', low).p50Ms;
  console.log(`gw p50 overhead vs bare proxy (${low} conns): ${overhead.toFixed(3)} ms  (target < 1 ms)`);
  if (names.includes('gw prompt')) {
    const added = at('gw prompt', low).p50Ms - at('gw', low).p50Ms;
    console.log(`prompt completion p50 added vs the same chat call sent whole (${low} conns): ${added.toFixed(3)} ms  (target < 1 ms)`);
    console.log(`prompt completion / chat throughput (${high} conns): ${ratio(at('gw prompt', high).requestsPerSecond, gw.requestsPerSecond)}`);
  }
  if (names.includes('gw responses')) {
    const responses = at('gw responses', high);
    console.log(`responses (translated to chat) / upstream throughput (${high} conns): ${ratio(responses.requestsPerSecond, at('upstream', high).requestsPerSecond)}`);
    console.log(`responses / chat throughput through gw (${high} conns): ${ratio(responses.requestsPerSecond, gw.requestsPerSecond)}  (same overhead budget as chat)`);
    console.log(`responses p50 overhead vs upstream (${low} conns): ${(at('gw responses', low).p50Ms - at('upstream', low).p50Ms).toFixed(3)} ms; vs chat through gw: ${(at('gw responses', low).p50Ms - at('gw', low).p50Ms).toFixed(3)} ms`);
  }
  if (gwFailed) console.log('note: gw answered non-2xx statuses (see the table); its figures do not measure a working chat path.');
}

main().catch(async (error: unknown) => {
  console.error('bench failed:', error);
  await stopAll(children);
  process.exit(1);
});
