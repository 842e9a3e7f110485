/**
 * The stop sequence of server/shutdown.ts, in process with main.ts's listener: /ready fails at
 * once while requests are still served (the grace period a load balancer needs), then new
 * connections are refused, the request in flight finishes, and every answered request has its
 * log row once the stop is over. The grace period is ended by the test, not a clock.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Agent, request } from 'undici';
import { createApp } from '../../server/app.js';
import { bootstrap } from '../../server/bootstrap.js';
import { loadConfig } from '../../core/config.js';
import { InFlightRequests } from '../../core/in-flight.js';
import { createServices } from '../../server/services-factory.js';
import { shutdown } from '../../server/shutdown.js';
import { createDb } from '../../store/db.js';
import { storeEngines } from '../helpers/engines.js';
import { ADMIN_KEY } from '../helpers/test-app.js';
import { sharedDb } from '../helpers/test-db.js';

const COMPLETION = {
  id: 'chatcmpl-held',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};

/** An OpenAI-shaped upstream: a request saying "hold" waits for release(); others are answered at once. */
async function heldUpstream() {
  const held: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const answer = () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(COMPLETION));
      };
      if (raw.includes('"hold"')) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    held: () => held.length,
    release: () => held.splice(0).forEach((answer) => answer()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Whether a new TCP connection to the port is accepted (a connection already open says nothing). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function until(what: string, probe: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; !(await probe()); i++) {
    assert.ok(i < 600, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const engine of storeEngines()) {
  describe(`stopping gw (${engine.name})`, () => {
    test('/ready fails first while requests are served; then connections are refused, the request in flight finishes and is logged', async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-shutdown-'));
      const db = await sharedDb(engine.databaseUrl);
      const upstream = await heldUpstream();
      const agent = new Agent();
      try {
        const config = loadConfig({
          GW_DATA_DIR: dataDir,
          GW_ADMIN_API_KEY: ADMIN_KEY,
          GW_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
          GW_LOG_LEVEL: 'silent',
          GW_REQUEST_LOG_LEVEL: 'silent',
          TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
        });
        assert.equal(config.shutdownGraceMs, 5000, 'the grace period defaults to 5 s');
        const services = await createServices(config, { db: db.options });
        await bootstrap(services);
        const app = await createApp(services);
        const inFlight = new InFlightRequests();
        const server = createServer(inFlight.wrap(app.listener));
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const port = (server.address() as AddressInfo).port;
        const base = `http://127.0.0.1:${port}`;
        const chat = (content: string, traceId: string) =>
          request(`${base}/v1/chat/completions`, {
            method: 'POST',
            dispatcher: agent,
            headers: { 'content-type': 'application/json', 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-upstream', 'x-gw-trace-id': traceId },
            body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
          });
        const get = (pathname: string) => request(`${base}${pathname}`, { dispatcher: agent });

        assert.equal((await get('/ready')).statusCode, 200);
        // A request in flight across the whole stop: its upstream answers only when released.
        let inFlightSettled = false;
        const longOne = chat('hold', 'shutdown-in-flight').finally(() => (inFlightSettled = true));
        await until('the long request to reach the upstream', () => upstream.held() === 1);

        let endGrace!: () => void;
        const stopped = shutdown({ services, server, inFlight }, 'SIGTERM', new Promise<void>((resolve) => (endGrace = resolve)));

        // The grace period: not ready, still serving, and answers ask clients to reconnect elsewhere.
        const ready = await get('/ready');
        assert.equal(ready.statusCode, 503);
        assert.equal(((await ready.body.json()) as { status: string }).status, 'shutting_down');
        assert.equal((await get('/health')).statusCode, 200, 'still alive: liveness stays up');
        const during = await chat('during the grace period', 'shutdown-during-grace');
        assert.equal(during.statusCode, 200);
        assert.equal(during.headers.connection, 'close');
        await during.body.text();
        assert.ok(await accepts(port), 'new connections are still accepted during the grace period');

        endGrace();
        await until('new connections to be refused', async () => !(await accepts(port)));
        assert.equal(inFlightSettled, false, 'the request in flight is still being answered');
        upstream.release();
        const answer = await longOne;
        assert.equal(answer.statusCode, 200);
        await answer.body.text();
        await stopped;

        // The stop wrote the log queue before closing the store: both answered requests have their rows.
        const store = createDb(db.options);
        try {
          const rows = (await store('request_logs').select('trace_id', 'status')) as Array<{ trace_id: string; status: number }>;
          assert.deepEqual(rows.map((row) => [row.trace_id, row.status]).sort(), [['shutdown-during-grace', 200], ['shutdown-in-flight', 200]]);
        } finally {
          await store.destroy();
        }
      } finally {
        upstream.release();
        await agent.close();
        await upstream.close();
        await db.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
