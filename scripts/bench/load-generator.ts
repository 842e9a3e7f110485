import { Pool } from 'undici';

/** One measured run, sent by the parent over IPC. */
export interface LoadJob {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  requests: number;
  /** Warm-up included: what the servers' CPU time was spent on. */
  allRequests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Count per HTTP status; transport failures under "error". */
  statuses: Record<string, number>;
}

/*
 * A closed-loop generator: `connections` keep-alive sockets, each sending its next request as
 * soon as the previous answer is read. Latency is timed with hrtime in microseconds, which a
 * sub-millisecond overhead target needs (autocannon's histogram keeps whole milliseconds).
 * It runs in its own process so it never shares an event loop with a server under test.
 */
async function run(job: LoadJob): Promise<LoadResult> {
  const target = new URL(job.url);
  const pool = new Pool(target.origin, { connections: job.connections, pipelining: 1 });
  const path = target.pathname + target.search;
  const body = Buffer.from(job.body);
  const statuses: Record<string, number> = {};
  let latencies: number[] = [];
  let measuring = false;
  let allRequests = 0;

  const worker = async (until: () => boolean) => {
    while (!until()) {
      const started = process.hrtime.bigint();
      let status: string;
      try {
        const answer = await pool.request({ method: 'POST', path, headers: job.headers, body });
        await answer.body.dump();
        status = String(answer.statusCode);
      } catch {
        status = 'error';
      }
      allRequests += 1;
      if (measuring) {
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }
  };
  const phase = async (ms: number) => {
    const deadline = Date.now() + ms;
    const finished = () => Date.now() >= deadline;
    await Promise.all(Array.from({ length: job.connections }, () => worker(finished)));
  };

  await phase(job.warmupMs);
  // The parent may start measuring the server from here (scripts/bench/delayed-latency.ts).
  process.send?.({ warmedUp: true });
  latencies = [];
  measuring = true;
  const started = process.hrtime.bigint();
  await phase(job.durationMs);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  measuring = false;
  await pool.close();

  const sorted = Float64Array.from(latencies).sort();
  const at = (q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  return { requests: sorted.length, allRequests, seconds, requestsPerSecond: sorted.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99), statuses };
}

process.once('message', (job: LoadJob) => {
  void run(job).then((result) => {
    process.send!(result);
    process.disconnect();
  });
});
