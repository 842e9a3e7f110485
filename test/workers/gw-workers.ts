/**
 * gw run as a real process with GW_WORKERS=2 (node:cluster: a primary and two workers on one port),
 * and the checks that must hold whichever worker takes a call (docs/operations.md, "Several
 * workers"). One file per store runs it: test/workers/workers-sqlite.test.ts, workers-postgres.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, until } from '../helpers/processes.js';

const ADMIN_KEY = 'gw-test-admin-key-workers-0123456789';
const ROOT = path.resolve(import.meta.dirname, '../..');
/** Bounded waits: tsx compiling gw in three processes on a crowded machine is slow to start. */
const START_MS = 180_000;

export interface StoreVariant {
  name: string;
  env: Record<string, string>;
  setup(): Promise<void>;
  /** The trace ids of the request log rows in the store once gw stopped. */
  logTraceIds(dataDir: string): Promise<string[]>;
  cleanup(): Promise<void>;
}

/** A chat upstream that answers at once, or holds its answers until `release` while `holding`. */
async function startUpstream(): Promise<{ url: string; calls: number; held: number; holding: boolean; release(): void; close(): Promise<void> }> {
  const held: ServerResponse[] = [];
  const answer = (res: ServerResponse) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }),
    );
  const state = {
    calls: 0,
    holding: false,
    get held() {
      return held.length;
    },
    url: '',
    release() {
      state.holding = false;
      for (const res of held.splice(0)) answer(res);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    req.resume().on('end', () => {
      state.calls += 1;
      if (state.holding) held.push(res);
      else answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

/** The worker processes of a primary: its children running gw (under tsx it also has esbuild's service process). */
function workersOf(primaryPid: number): number[] {
  let out: string;
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(primaryPid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when the process has no children
  }
  return out
    .split('\n')
    .filter((line) => line.includes('server/main.ts'))
    .map((line) => Number(line.trim().split(' ')[0]));
}

export function describeWorkers(variant: StoreVariant): void {
  describe(`GW_WORKERS=2: ${variant.name}`, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-workers-'));
    let gw: ChildProcess;
    let output = '';
    let url = '';
    let metricsUrl = '';
    let upstream: Awaited<ReturnType<typeof startUpstream>>;
    /** The trace ids of the gateway requests gw answered: each one must have its log row. */
    const answered: string[] = [];

    before(async () => {
      await variant.setup();
      upstream = await startUpstream();
      const [port, metricsPort] = [await freePort(), await freePort()];
      gw = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          GW_WORKERS: '2',
          GW_DATA_DIR: dataDir,
          GW_PORT: String(port),
          GW_HOST: '127.0.0.1',
          GW_METRICS_PORT: String(metricsPort),
          GW_ADMIN_API_KEY: ADMIN_KEY,
          GW_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
          GW_LOG_LEVEL: 'info',
          GW_REQUEST_LOG_LEVEL: 'silent',
          GW_SHUTDOWN_GRACE_MS: '0',
          TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
          ...variant.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      gw.stdout!.on('data', (chunk) => (output += chunk));
      gw.stderr!.on('data', (chunk) => (output += chunk));
      url = `http://127.0.0.1:${port}`;
      metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      let last = '';
      await until('both workers to serve', async () => {
        assert.equal(gw.exitCode, null, `gw exited: ${output}`);
        const ready = await fetch(`${url}/ready`).then(async (res) => `${res.status} ${await res.text()}`, (error: Error) => error.message);
        const workers = workersOf(gw.pid!);
        last = `ready: ${ready}; workers: ${workers.join(',')}`;
        return ready.startsWith('200') && workers.length === 2 && output.includes('every worker listening') ? true : undefined;
      }, START_MS).catch((error: Error) => assert.fail(`${error.message} (${last}): ${output}`));
    });
    after(async () => {
      if (gw && gw.exitCode === null && gw.signalCode === null) {
        gw.kill('SIGKILL');
        for (const pid of workersOf(gw.pid!)) process.kill(pid, 'SIGKILL');
      }
      await upstream?.close();
      await variant.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** A chat call on a connection of its own, so calls are spread over the workers. */
    async function chat(headers: Record<string, string> = {}, body: Record<string, unknown> = {}): Promise<Response> {
      const traceId = randomUUID();
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gw-trace-id': traceId, connection: 'close', 'content-type': 'application/json', 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-up', ...headers },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], ...body }),
      });
      await res.arrayBuffer();
      answered.push(traceId);
      return res;
    }

    test('a rate limit of 5 admits exactly 5 of 18 concurrent calls spread over both workers (counters with one owner)', async () => {
      const created = await fetch(`${url}/v2/policies/rate-limits`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': ADMIN_KEY },
        body: JSON.stringify({ name: 'five', conditions: [{ key: 'metadata.test', value: 'five' }], type: 'requests', unit: 'day', value: 5 }),
      });
      assert.equal(created.status, 201, await created.text());
      const before = upstream.calls;
      const statuses = (await Promise.all(Array.from({ length: 18 }, () => chat({ 'x-gw-metadata': JSON.stringify({ test: 'five' }) })))).map((res) => res.status);
      assert.equal(statuses.filter((status) => status === 200).length, 5, statuses.join(','));
      assert.equal(statuses.filter((status) => status === 429).length, 13, statuses.join(','));
      assert.equal(upstream.calls - before, 5, 'refused calls never reached the upstream');
    });

    test('the response cache is shared: four calls on four connections reach the upstream once', async () => {
      const config = JSON.stringify({ provider: 'openai', api_key: 'sk-up', custom_host: upstream.url, cache: { mode: 'simple', max_age: 60 } });
      const before = upstream.calls;
      const statuses: Array<string | null> = [];
      for (let i = 0; i < 4; i++) statuses.push((await chat({ 'x-gw-config': config }, { messages: [{ role: 'user', content: 'cached' }] })).headers.get('x-gw-cache-status'));
      assert.deepEqual(statuses, ['MISS', 'HIT', 'HIT', 'HIT']);
      assert.equal(upstream.calls - before, 1);
    });

    test('/metrics counts every worker: gw_requests_total sums to the calls answered, whichever worker is scraped', async () => {
      for (let scrape = 0; scrape < 2; scrape++) {
        const text = await (await fetch(metricsUrl, { headers: { connection: 'close' } })).text();
        const total = text
          .split('\n')
          .filter((line) => line.startsWith('gw_requests_total{'))
          .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
        assert.equal(total, answered.length, text.split('\n').filter((line) => line.startsWith('gw_requests_total')).join('\n'));
      }
    });

    test('a worker killed mid-request is replaced; the calls the other worker holds complete', async () => {
      const [victim] = workersOf(gw.pid!);
      const listened = () => output.split('gw listening').length - 1;
      const listenedBefore = listened();
      upstream.holding = true;
      const calls = Array.from({ length: 6 }, () => chat().then((res) => res.status, () => 'dropped' as const));
      await until('six calls held upstream', () => (upstream.held === 6 ? true : undefined));
      // A process killed outright loses the log entries it had not written yet (up to GW_LOG_FLUSH_INTERVAL_MS): let the earlier calls' rows land first.
      await until('the earlier calls logged', async () => {
        const logged = new Set(await variant.logTraceIds(dataDir));
        return answered.every((id) => logged.has(id)) ? true : undefined;
      });
      process.kill(victim!, 'SIGKILL');
      const replaced = await until('a new worker', () => {
        const now = workersOf(gw.pid!);
        return now.length === 2 && !now.includes(victim!) ? now : undefined;
      });
      upstream.release();
      await until('the new worker to listen', () => (listened() > listenedBefore ? true : undefined), START_MS);
      const outcomes = await Promise.all(calls);
      const dropped = outcomes.filter((outcome) => outcome === 'dropped').length;
      assert.ok(dropped >= 1 && dropped < 6, `both workers held calls: ${outcomes.join(',')}`);
      assert.deepEqual(outcomes.filter((outcome) => outcome !== 'dropped'), Array(6 - dropped).fill(200), 'the surviving worker answered its calls');
      assert.equal(replaced.length, 2);
      const after = await Promise.all(Array.from({ length: 4 }, () => chat()));
      assert.deepEqual(after.map((res) => res.status), [200, 200, 200, 200]);
    });

    test('SIGTERM drains every worker: calls in flight on both complete, gw exits 0, and every answered call has its log row', async () => {
      upstream.holding = true;
      const calls = Array.from({ length: 4 }, () => chat().then((res) => res.status, () => 'dropped' as const));
      await until('four calls held upstream', () => (upstream.held === 4 ? true : undefined));
      const exited = new Promise<number | null>((resolve) => gw.once('exit', (code) => resolve(code)));
      gw.kill('SIGTERM');
      // The workers stop accepting, but wait for their calls in flight.
      await until('the workers to stop listening', async () => {
        const refused = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).then(() => false, (error: Error) => error.name !== 'TimeoutError');
        return refused ? true : undefined;
      });
      upstream.release();
      assert.deepEqual(await Promise.all(calls), [200, 200, 200, 200], output);
      assert.equal(await exited, 0, output);
      const logged = await variant.logTraceIds(dataDir);
      assert.deepEqual(answered.filter((id) => logged.filter((row) => row === id).length !== 1), [], 'every answered call has exactly one log row');
    });
  });
}
