/**
 * A Postgres outage under load loses no log row: gw runs as its own process and reaches Postgres
 * through a TCP relay this test can cut. While the relay refuses every connection for OUTAGE_MS
 * (the figure of issue 36), chat calls keep coming; what the writer cannot store waits in memory
 * and, past a small queue, in the spool on disk. Once Postgres is back every answered call has its
 * row and none was dropped. Postgres only: the embedded SQLite has no outage to survive.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import knexFactory, { type Knex } from 'knex';
import { Agent, request } from 'undici';
import { storeEngines } from '../helpers/engines.js';
import { ADMIN_KEY } from '../helpers/test-app.js';
import { privateDb } from '../helpers/test-db.js';
import { startGwProcess, type GwChild } from '../helpers/processes.js';

const OUTAGE_MS = 30_000;
/** Calls during the outage: WORKERS at a time, each worker pausing PAUSE_MS between calls. */
const CALLS_IN_OUTAGE = 600;
const WORKERS = 6;
const PAUSE_MS = 250;
const METRICS_TOKEN = randomBytes(16).toString('hex');

/** A TCP relay to Postgres; `cut()` drops every connection and refuses new ones until `restore()`. */
async function relay(target: URL): Promise<{ port: number; cut: () => void; restore: () => void; close: () => Promise<void> }> {
  let down = false;
  const open = new Set<Socket>();
  const server = createNetServer((client) => {
    if (down) return client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => {
      down = true;
      for (const socket of open) socket.destroy();
    },
    restore: () => {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-outage',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});

async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const databaseUrl = storeEngines().find((engine) => engine.databaseUrl)?.databaseUrl;

describe('a Postgres outage under load loses no log row', { skip: databaseUrl ? false : 'Postgres only (GW_TEST_DATABASE_URL)' }, () => {
  let dataDir: string;
  let db: Knex;
  let drop: () => Promise<void>;
  let pg: Awaited<ReturnType<typeof relay>>;
  let upstream: Server;
  let upstreamUrl: string;
  let gw: GwChild;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'gw-outage-'));
    const schema = await privateDb(databaseUrl);
    drop = schema.drop;
    db = knexFactory({ client: 'pg', connection: databaseUrl, searchPath: [schema.options.schema!], pool: { min: 0, max: 1 } });
    pg = await relay(new URL(databaseUrl!));
    upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.setHeader('content-type', 'application/json').end(COMPLETION));
    });
    upstreamUrl = `http://127.0.0.1:${await listen(upstream)}/v1`;
    const url = new URL(databaseUrl!);
    url.port = String(pg.port);
    url.searchParams.set('options', `-c search_path=${schema.options.schema}`);
    gw = await startGwProcess({
      GW_DATA_DIR: dataDir,
      GW_DATABASE_URL: url.toString(),
      GW_ADMIN_API_KEY: ADMIN_KEY,
      GW_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
      GW_LOG_FLUSH_INTERVAL_MS: '100',
      // Small, so the outage's rows overflow the memory queue into the spool on disk.
      GW_LOG_QUEUE_MAX: '100',
      GW_METRICS_TOKEN: METRICS_TOKEN,
      GW_LOG_BEHIND_SECONDS: '5',
    });
  });
  after(async () => {
    gw?.child.kill('SIGTERM');
    if (gw && gw.child.exitCode === null) await new Promise((resolve) => gw.child.once('exit', resolve));
    await db?.destroy();
    await pg?.close();
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
    await drop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test(`${OUTAGE_MS / 1000} s without Postgres: every answered call has its row once it is back`, async () => {
    const agent = new Agent({ connections: WORKERS });
    const call = async (traceId: string) => {
      const response = await request(`http://127.0.0.1:${gw.port}/v1/chat/completions`, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'x-gw-api-key': ADMIN_KEY,
          'x-gw-provider': 'openai',
          'x-gw-custom-host': upstreamUrl,
          authorization: 'Bearer sk-upstream',
          'x-gw-trace-id': traceId,
        },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await response.body.text();
      return response.statusCode;
    };
    assert.equal(await call('before-outage'), 200);

    pg.cut();
    const outageEnds = Date.now() + OUTAGE_MS;
    const answered: string[] = [];
    const statuses = new Set<number>();
    let next = 0;
    const worker = async () => {
      while (next < CALLS_IN_OUTAGE && Date.now() < outageEnds) {
        const traceId = `outage-${(next += 1)}`;
        const status = await call(traceId);
        statuses.add(status);
        if (status === 200) answered.push(traceId);
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    // The store being down is gw's problem, not the caller's: every call was answered.
    assert.deepEqual([...statuses], [200]);
    assert.ok(answered.length >= 100, `only ${answered.length} calls were made during the outage`);
    const spooled = readdirSync(path.join(dataDir, 'log-spool')).length;
    assert.ok(spooled > 0, 'the rows past the memory queue went to the spool on disk');
    // Rows older than GW_LOG_BEHIND_SECONDS wait: the instance says it is behind.
    const readiness = async () => {
      const response = await request(`http://127.0.0.1:${gw.port}/ready`, { dispatcher: agent });
      return { status: response.statusCode, body: (await response.body.json()) as { checks: Record<string, boolean> } };
    };
    const during = await readiness();
    assert.equal(during.status, 503);
    assert.equal(during.body.checks.request_log, false);
    // The outage lasts its full length, calls or not.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageEnds - Date.now())));

    pg.restore();
    assert.equal(await call('after-outage'), 200);
    const expected = ['before-outage', ...answered, 'after-outage'];
    let missing = expected;
    for (let i = 0; missing.length > 0 && i < 1200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const rows = new Set((await db('request_logs').select('trace_id')).map((row: { trace_id: string }) => row.trace_id));
      missing = expected.filter((traceId) => !rows.has(traceId));
    }
    assert.deepEqual(missing, [], `${missing.length} of ${expected.length} answered calls have no log row; gw said: ${gw.output().slice(-4000)}`);
    assert.deepEqual(await readiness(), { status: 200, body: { status: 'ready', checks: { store: true, request_log: true } } });
    const metrics = await (await request(`http://127.0.0.1:${gw.port}/metrics`, { dispatcher: agent, headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body.text();
    assert.match(metrics, /^gw_log_rows_dropped_total 0$/m);
    await agent.close();
  });
});
