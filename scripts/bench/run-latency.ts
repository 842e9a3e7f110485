/**
 * The assistant-run row of `make bench`: one model turn as an assistant run (create-and-run,
 * streamed until `thread.run.completed`, and created in the background then polled until
 * completed) against the same turn as a plain streamed chat call to gw, over the same upstream.
 * Sequential calls give the latency a run adds (p50, p99); a closed loop of concurrent clients
 * gives runs completed per second.
 */
import { Agent, request } from 'undici';

export interface LatencyResult {
  calls: number;
  p50Ms: number;
  p99Ms: number;
  /** gw's CPU time per call, all threads: what the machine's other load does not inflate much. */
  cpuMicros: number;
}

export interface RunBenchResult {
  chat: LatencyResult;
  streamedRun: LatencyResult;
  polledRun: LatencyResult;
  streamedRunsPerSecond: number;
  polledRunsPerSecond: number;
  concurrency: number;
  /** Chat calls and run turns made (warm-up included): each is a request log row. */
  logged: number;
}

export interface RunBenchOptions {
  calls: number;
  warmup: number;
  /** Clients in the throughput loop, each starting its next run when the last completed. */
  concurrency: number;
  seconds: number;
  /** How often a polling client asks for a background run's status. */
  pollMs: number;
  /** gw's CPU time so far, in microseconds. */
  gwCpuMicros(): Promise<number>;
}

const MESSAGE = { role: 'user', content: 'Say hello.' };
const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 60_000 });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The calls one turn takes, each resolving when the turn's answer is complete. */
function turns(gwUrl: string, headers: Record<string, string>, assistantId: string, pollMs: number, counted: { logged: number }) {
  const post = async (path: string, body: unknown) => {
    const res = await request(`${gwUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body), dispatcher });
    const text = await res.body.text();
    counted.logged += 1;
    if (res.statusCode !== 200) throw new Error(`bench: POST ${path} answered ${res.statusCode}: ${text}`);
    return text;
  };
  return {
    async chat(): Promise<void> {
      const text = await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [MESSAGE], stream: true, stream_options: { include_usage: true } });
      if (!text.includes('data: [DONE]')) throw new Error(`bench: the chat stream did not finish: ${text}`);
    },
    async streamedRun(): Promise<void> {
      const text = await post('/v1/threads/runs', { assistant_id: assistantId, thread: { messages: [MESSAGE] }, stream: true });
      if (!text.includes('event: thread.run.completed')) throw new Error(`bench: the run did not complete: ${text.slice(-500)}`);
    },
    async polledRun(): Promise<void> {
      const run = JSON.parse(await post('/v1/threads/runs', { assistant_id: assistantId, thread: { messages: [MESSAGE] } })) as { id: string; thread_id: string };
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, pollMs));
        const res = await request(`${gwUrl}/v1/threads/${run.thread_id}/runs/${run.id}`, { headers, dispatcher });
        const status = ((await res.body.json()) as { status: string }).status;
        if (status === 'completed') return;
        if (!['queued', 'in_progress'].includes(status)) throw new Error(`bench: the background run ended ${status}`);
      }
    },
  };
}

async function timeSequential(call: () => Promise<void>, warmup: number, calls: number, gwCpuMicros: () => Promise<number>): Promise<LatencyResult> {
  for (let i = 0; i < warmup; i++) await call();
  const times: number[] = [];
  const cpuBefore = await gwCpuMicros();
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  const cpuMicros = ((await gwCpuMicros()) - cpuBefore) / calls;
  times.sort((a, b) => a - b);
  return { calls, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), cpuMicros };
}

async function perSecond(call: () => Promise<void>, concurrency: number, seconds: number): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await call();
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/** Creates the bench assistant, then times the three ways one turn goes, interleaved so each sees the same machine. */
export async function measureRuns(gwUrl: string, adminKey: string, upstreamPort: number, options: RunBenchOptions): Promise<RunBenchResult> {
  const headers = {
    'content-type': 'application/json',
    authorization: 'Bearer sk-bench',
    'x-gw-api-key': adminKey,
    'x-gw-provider': 'openai',
    'x-gw-custom-host': `http://127.0.0.1:${upstreamPort}/v1`,
  };
  const created = await request(`${gwUrl}/v1/assistants`, { method: 'POST', headers, body: JSON.stringify({ model: 'gpt-4o-mini' }), dispatcher });
  const assistant = (await created.body.json()) as { id?: string };
  if (created.statusCode !== 200 || !assistant.id) throw new Error(`bench: assistant not created: ${JSON.stringify(assistant)}`);
  const counted = { logged: 0 };
  const turn = turns(gwUrl, headers, assistant.id, options.pollMs, counted);
  const chat = await timeSequential(turn.chat, options.warmup, options.calls, options.gwCpuMicros);
  const streamedRun = await timeSequential(turn.streamedRun, options.warmup, options.calls, options.gwCpuMicros);
  // Polling is slower by its interval; fewer calls keep the row short.
  const polledRun = await timeSequential(turn.polledRun, Math.min(options.warmup, 20), Math.max(1, Math.floor(options.calls / 5)), options.gwCpuMicros);
  const streamedRunsPerSecond = await perSecond(turn.streamedRun, options.concurrency, options.seconds);
  const polledRunsPerSecond = await perSecond(turn.polledRun, options.concurrency, options.seconds);
  return { chat, streamedRun, polledRun, streamedRunsPerSecond, polledRunsPerSecond, concurrency: options.concurrency, logged: counted.logged };
}

export function reportRuns(result: RunBenchResult): void {
  const row = (name: string, r: LatencyResult) =>
    console.log(`  ${name.padEnd(44)} p50 ${r.p50Ms.toFixed(3)} ms  p99 ${r.p99Ms.toFixed(3)} ms  gw CPU ${(r.cpuMicros / 1000).toFixed(3)} ms/call  (${r.calls} calls)`);
  console.log('\nAssistant run of one model turn vs the same turn as a streamed chat call, sequential');
  row('chat call (stream: true)', result.chat);
  row('run, create-and-run streamed to completed', result.streamedRun);
  row(`run, created in the background, polled`, result.polledRun);
  console.log(`  run added latency (streamed):                p50 ${(result.streamedRun.p50Ms - result.chat.p50Ms).toFixed(3)} ms  (target < 5 ms)`);
  console.log(`  run added latency (background + polling):    p50 ${(result.polledRun.p50Ms - result.chat.p50Ms).toFixed(3)} ms  (polling included)`);
  console.log(`  run added gw CPU (streamed):                 ${((result.streamedRun.cpuMicros - result.chat.cpuMicros) / 1000).toFixed(3)} ms per run`);
  console.log(`  runs completed per second (${result.concurrency} clients):     streamed ${result.streamedRunsPerSecond.toFixed(0)}  background ${result.polledRunsPerSecond.toFixed(0)}`);
}
