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
import { Client } from 'undici';
import { startFakeMcpServer } from '../helpers/fake-mcp-server.js';
import { freePort, until } from '../helpers/processes.js';

const ADMIN_KEY = 'gw-test-admin-key-workers-0123456789';
const ROOT = path.resolve(import.meta.dirname, '../..');
/** Bounded waits: tsx compiling gw in three processes on a crowded machine (2 cores shared by many) is slow to start. */
const START_MS = 480_000;
/** A run's job taken and its turn done, on the same crowded machine. */
const RUN_MS = 180_000;

export interface StoreVariant {
  name: string;
  env: Record<string, string>;
  setup(): Promise<void>;
  /** The trace ids of the request log rows in the store once gw stopped. */
  logTraceIds(dataDir: string): Promise<string[]>;
  cleanup(): Promise<void>;
}

/** A chat upstream (JSON, or server-sent events when the call streams: an assistant run's turn) that answers at once, or holds its answers until `release` while `holding`. */
async function startUpstream(): Promise<{ url: string; calls: number; held: number; holding: boolean; release(): void; close(): Promise<void> }> {
  const held: Array<{ res: ServerResponse; stream: boolean }> = [];
  const completion = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
  const chunk = (choices: unknown[], usage?: unknown) => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices, ...(usage ? { usage } : {}) })}\n\n`;
  const answer = ({ res, stream }: { res: ServerResponse; stream: boolean }) => {
    if (res.destroyed) return;
    if (!stream) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(
      chunk([{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }]) + chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]) + chunk([], completion.usage) + 'data: [DONE]\n\n',
    );
  };
  const state = {
    calls: 0,
    holding: false,
    get held() {
      return held.length;
    },
    url: '',
    release() {
      state.holding = false;
      for (const call of held.splice(0)) answer(call);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (data: Buffer) => chunks.push(data)).on('end', () => {
      state.calls += 1;
      const call = { res, stream: (JSON.parse(Buffer.concat(chunks).toString() || '{}') as { stream?: boolean }).stream === true };
      if (state.holding) held.push(call);
      else answer(call);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

/** One kept-alive connection to gw, so the calls it sends all land on the worker that took it (`x-gw-worker`). */
interface Pinned {
  worker: string;
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>;
  close(): Promise<void>;
}

async function pin(url: string): Promise<Pinned> {
  const client = new Client(url, { pipelining: 1 });
  const send: Pinned['send'] = async (method, path, body, headers = {}) => {
    const res = await client.request({ method: method as 'GET', path, headers: { 'x-gw-api-key': ADMIN_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  };
  const health = await send('GET', '/health');
  return { worker: String(health.headers['x-gw-worker']), send, close: () => client.close() };
}

/** A connection to each of the two workers (the primary hands new connections to the workers in turn). */
async function pinEachWorker(url: string): Promise<[Pinned, Pinned]> {
  const first = await pin(url);
  for (let i = 0; i < 20; i++) {
    const other = await pin(url);
    if (other.worker !== first.worker) return [first, other];
    await other.close();
  }
  throw new Error(`every connection landed on worker ${first.worker}`);
}

/** The JSON-RPC answer of an MCP POST, answered as JSON or as one server-sent event. */
function rpcAnswer(text: string): { result?: { content: Array<{ text: string }> }; error?: { message: string } } {
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return JSON.parse(data ? data.slice(6) : text);
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
          // Assistant runs' jobs are taken sooner (the SQLite engine polls).
          GW_JOBS_POLL_MS: '200',
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

    test('an MCP session started on one worker is served by both: tools/call on the other finds it, and its end is seen by both', async () => {
      const mcp = await startFakeMcpServer({ name: 'fake-mcp' });
      const [a, b] = await pinEachWorker(url);
      try {
        const integration = await a.send('POST', '/v1/mcp-integrations', { name: 'tools upstream', url: mcp.url, transport: 'http', auth_type: 'none', global_workspace_access: true });
        assert.equal(integration.status, 201, integration.text);
        assert.equal(JSON.parse(integration.text).sync_status, 'synced', integration.text);
        const server = await a.send('POST', '/v1/mcp-servers', { name: 'tools', slug: 'tools', mcp_integration_id: JSON.parse(integration.text).id });
        assert.equal(server.status, 201, server.text);
        const key = await a.send('POST', '/v1/api-keys/workspace/service', { name: 'mcp caller', workspace_id: 'default', scopes: ['mcp.invoke'] });
        assert.equal(key.status, 201, key.text);
        const caller = { 'x-gw-api-key': JSON.parse(key.text).key as string, accept: 'application/json, text/event-stream' };

        const init = await a.send('POST', '/tools/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'workers', version: '1' } } }, caller);
        assert.equal(init.status, 200, init.text);
        assert.equal(init.headers['x-gw-worker'], a.worker);
        const session = { ...caller, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
        assert.equal((await b.send('POST', '/tools/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status, 202);
        for (const [i, via] of [b, a, b, a].entries()) {
          const answer = await via.send('POST', '/tools/mcp', { jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'add', arguments: { a: i, b: 1 } } }, session);
          assert.equal(answer.status, 200, answer.text);
          assert.equal(answer.headers['x-gw-worker'], via.worker);
          assert.equal(rpcAnswer(answer.text).result?.content[0]?.text, String(i + 1), answer.text);
        }
        assert.deepEqual(mcp.toolCalls.map((call) => call.args), [0, 1, 2, 3].map((i) => ({ a: i, b: 1 })));

        // Ended on the worker that did not start it: neither worker serves it any more.
        assert.equal((await b.send('DELETE', '/tools/mcp', undefined, session)).status, 200);
        for (const via of [a, b]) {
          const gone = await via.send('POST', '/tools/mcp', { jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } }, session);
          assert.equal(gone.status, 404, `worker ${via.worker}: ${gone.text}`);
        }
        assert.equal(mcp.toolCalls.length, 4);
      } finally {
        await Promise.all([a.close(), b.close(), mcp.close()]);
      }
    });

    test('assistant runs work whichever worker takes the call: created on one, read and cancelled on the other, a streamed run cancelled from the other worker', async () => {
      const [a, b] = await pinEachWorker(url);
      const provider = { 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-up' };
      const json = <T>(answer: { status: number; text: string }): T => {
        assert.ok(answer.status < 300, `${answer.status} ${answer.text}`);
        return JSON.parse(answer.text) as T;
      };
      const read = async (via: Pinned, run: { id: string; thread_id: string }) => json<{ status: string }>(await via.send('GET', `/v1/threads/${run.thread_id}/runs/${run.id}`)).status;
      const reaches = (via: Pinned, run: { id: string; thread_id: string }, status: string, also: () => boolean = () => true) =>
        until(`run ${run.id} ${status} on worker ${via.worker}`, async () => ((await read(via, run)) === status && also() ? true : undefined), RUN_MS);
      try {
        const assistant = json<{ id: string }>(await a.send('POST', '/v1/assistants', { model: 'gpt-4o' }));
        const thread = { messages: [{ role: 'user', content: 'hello' }] };

        // In the background: created on a, run by whichever worker takes its job, followed and read on b.
        const done = json<{ id: string; thread_id: string }>(await a.send('POST', '/v1/threads/runs', { assistant_id: assistant.id, thread }, provider));
        await reaches(b, done, 'completed');
        assert.equal(await read(a, done), 'completed');
        const messages = json<{ data: Array<{ role: string; content: Array<{ text: { value: string } }> }> }>(await b.send('GET', `/v1/threads/${done.thread_id}/messages`));
        assert.deepEqual(messages.data.map((message) => [message.role, message.content[0]?.text.value]), [['assistant', 'hi'], ['user', 'hello']]);

        // Held at the upstream, then cancelled on b: the worker holding the turn (either) aborts it.
        upstream.holding = true;
        const heldBefore = upstream.held;
        const held = json<{ id: string; thread_id: string }>(await a.send('POST', '/v1/threads/runs', { assistant_id: assistant.id, thread }, provider));
        await reaches(b, held, 'in_progress', () => upstream.held === heldBefore + 1);
        assert.equal(json<{ status: string }>(await b.send('POST', `/v1/threads/${held.thread_id}/runs/${held.id}/cancel`)).status, 'cancelling');
        await reaches(a, held, 'cancelled');

        // Streamed on a: its turn runs on a, which holds the client's connection; b cancels it.
        const streamThread = json<{ id: string }>(await b.send('POST', '/v1/threads', thread));
        const streaming = a.send('POST', `/v1/threads/${streamThread.id}/runs`, { assistant_id: assistant.id, stream: true }, provider);
        const streamed = await until('the streamed run to start', async () => json<{ data: Array<{ id: string; thread_id: string }> }>(await b.send('GET', `/v1/threads/${streamThread.id}/runs`)).data[0], RUN_MS);
        await reaches(b, streamed, 'in_progress', () => upstream.held === heldBefore + 2);
        assert.equal(json<{ status: string }>(await b.send('POST', `/v1/threads/${streamed.thread_id}/runs/${streamed.id}/cancel`)).status, 'cancelling');
        const events = await streaming;
        assert.equal(events.status, 200);
        assert.equal(events.headers['x-gw-worker'], a.worker);
        assert.match(events.text, /event: thread\.run\.cancelled/, events.text);
        assert.equal(await read(a, streamed), 'cancelled');
        assert.equal(await read(b, streamed), 'cancelled');
      } finally {
        upstream.release();
        await Promise.all([a.close(), b.close()]);
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
