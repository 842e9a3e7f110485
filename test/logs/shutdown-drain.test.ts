/**
 * A stop loses no log row: gw runs as its own process (the entry `make run` starts), this test
 * process sends it chat requests, and gw gets SIGTERM while requests are in flight. After each
 * stop gw starts again on the same store; at the end every request that was answered has its
 * log row. The upstream answers slowly, so every stop lands with requests in flight: the window
 * in which an answered request used to miss its row.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import knexFactory, { type Knex } from 'knex';
import { Agent, request } from 'undici';
import { storeEngines } from '../helpers/engines.js';
import { ADMIN_KEY } from '../helpers/test-app.js';
import { privateDb } from '../helpers/test-db.js';
import { startGwProcess, type GwChild } from '../helpers/processes.js';

const ROUNDS = 4;
const REQUESTS_PER_ROUND = 150;
const STOP_AFTER_ANSWERS = 40;
const HOLD_MS = 2000;
const CONCURRENCY = 24;

/**
 * An OpenAI-shaped upstream that answers in 20 to 60 ms, except while held: `hold()` keeps every
 * answer, those already waiting included, until HOLD_MS later. The test holds it as it stops gw,
 * so requests are still in flight well after the stop began (when rows used to go missing).
 */
async function slowUpstream(): Promise<{ url: string; hold: () => void; close: () => Promise<void> }> {
  let heldUntil = 0;
  const waiting: Array<{ at: number; answer: () => void }> = [];
  const ticker = setInterval(() => {
    const now = Date.now();
    if (now < heldUntil) return;
    for (let i = waiting.length - 1; i >= 0; i--) {
      if (waiting[i]!.at <= now) waiting.splice(i, 1)[0]!.answer();
    }
  }, 5);
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      waiting.push({
        at: Date.now() + 20 + Math.floor(Math.random() * 40),
        answer: () => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(COMPLETION));
        },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    hold: () => {
      heldUntil = Date.now() + HOLD_MS;
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(ticker);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const COMPLETION = {
  id: 'chatcmpl-slow',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};

interface Outcome {
  traceId: string;
  status: number | null;
}

function chat(gw: GwChild, upstreamUrl: string, traceId: string, agent: Agent) {
  return request(`http://127.0.0.1:${gw.port}/v1/chat/completions`, {
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
}

/**
 * Sends the round's requests, CONCURRENCY at a time, and stops gw once enough were answered.
 * First one request, until its row is written: the log writer is then running, so the stop
 * finds it ready and writes the queue at once (a cold writer would hide the window).
 */
async function loadAndStop(gw: GwChild, upstream: { url: string; hold: () => void }, round: number, db: Knex): Promise<Outcome[]> {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  const warmUp = `round-${round}-warm-up`;
  await (await chat(gw, upstream.url, warmUp, agent)).body.text();
  for (let i = 0; !(await db('request_logs').where({ trace_id: warmUp }).first()); i++) {
    assert.ok(i < 1200, 'the warm-up request was never logged');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const outcomes: Outcome[] = [];
  let next = 0;
  let answered = 0;
  const exited = new Promise<number | null>((resolve) => gw.child.once('exit', (code) => resolve(code)));
  const worker = async () => {
    while (next < REQUESTS_PER_ROUND) {
      const traceId = `round-${round}-${(next += 1)}`;
      try {
        const response = await chat(gw, upstream.url, traceId, agent);
        await response.body.text();
        outcomes.push({ traceId, status: response.statusCode });
        answered += 1;
        if (answered === STOP_AFTER_ANSWERS) {
          upstream.hold();
          gw.child.kill('SIGTERM');
        }
      } catch {
        // Refused or reset once gw has stopped listening: never answered, so no row is owed.
        outcomes.push({ traceId, status: null });
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const code = await exited;
  await agent.close();
  assert.equal(code, 0, `gw exited with ${code}: ${gw.output()}`);
  return outcomes;
}

for (const engine of storeEngines()) {
  describe(`a stop loses no log row (${engine.name})`, () => {
    let dataDir: string;
    let env: Record<string, string>;
    let drop = async () => undefined as void;
    let db: Knex;
    let upstream: Awaited<ReturnType<typeof slowUpstream>>;

    before(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'gw-stop-'));
      upstream = await slowUpstream();
      env = {
        GW_DATA_DIR: dataDir,
        GW_ADMIN_API_KEY: ADMIN_KEY,
        GW_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
        // Short, so the log writer is warm and the queue is written quickly once the stop begins.
        GW_LOG_FLUSH_INTERVAL_MS: '50',
        // The stop lands on requests in flight at once: the grace period is shutdown.test.ts's.
        GW_SHUTDOWN_GRACE_MS: '0',
      };
      if (engine.databaseUrl) {
        const schema = await privateDb(engine.databaseUrl);
        drop = schema.drop;
        const url = new URL(engine.databaseUrl);
        url.searchParams.set('options', `-c search_path=${schema.options.schema}`);
        env.GW_DATABASE_URL = url.toString();
        db = knexFactory({ client: 'pg', connection: engine.databaseUrl, searchPath: [schema.options.schema!], pool: { min: 0, max: 1 } });
      } else {
        db = knexFactory({ client: 'better-sqlite3', connection: { filename: path.join(dataDir, 'gw.sqlite') }, useNullAsDefault: true });
      }
    });
    after(async () => {
      await db?.destroy();
      await upstream.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test(`${ROUNDS} stops under load, each followed by a restart: every answered request has its row`, async () => {
      const answered: Outcome[] = [];
      let inFlightAtStop = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const gw = await startGwProcess(env);
        const outcomes = await loadAndStop(gw, upstream, round, db);
        const mine = outcomes.filter((outcome) => outcome.status !== null);
        answered.push(...mine);
        inFlightAtStop += mine.length - STOP_AFTER_ANSWERS;
        assert.match(gw.output(), /request log queue written at shutdown/);
        assert.match(gw.output(), /"not_written":0/);
      }
      // Every answer was a success: a stop no longer cuts requests off from their upstream.
      assert.deepEqual([...new Set(answered.map((outcome) => outcome.status))], [200]);
      // The stops did land with requests in flight, which is when rows went missing.
      assert.ok(inFlightAtStop >= ROUNDS, `only ${inFlightAtStop} requests were answered after the stop signals`);
      const rows = new Set((await db('request_logs').select('trace_id')).map((row: { trace_id: string }) => row.trace_id));
      const missing = answered.filter((outcome) => !rows.has(outcome.traceId)).map((outcome) => outcome.traceId);
      assert.deepEqual(missing, [], `${missing.length} answered requests have no log row`);
    });
  });
}
