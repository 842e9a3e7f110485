/**
 * The batch of 1,000 lines across a crash: a spawned gw is killed (SIGKILL) mid-batch and started
 * again on the same store; the batch finishes with every line in the output exactly once.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import knexFactory from 'knex';
import OpenAI, { toFile } from 'openai';
import { freePort, untilListening } from '../helpers/processes.js';

const LINES = 1000;
const CONCURRENCY = 4;
const ADMIN_KEY = 'gw-test-admin-key-restart-0123456789';

/** An OpenAI-shaped upstream that answers each chat after a short pause and counts calls per line. */
async function startSlowUpstream(): Promise<{ url: string; calls: Map<string, number>; close: () => Promise<void> }> {
  const calls = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { model: string; messages: Array<{ content: string }> };
      const line = body.messages[0]!.content;
      calls.set(line, (calls.get(line) ?? 0) + 1);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-slow',
            object: 'chat.completion',
            created: 1_700_000_000,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: `done ${line}`, refusal: null }, logprobs: null, finish_reason: 'stop' }],
            usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
          }),
        );
      }, 15);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Variant {
  name: string;
  env: Record<string, string>;
  cleanup: () => Promise<void>;
}

function variants(): Variant[] {
  const list: Variant[] = [{ name: 'sqlite (in-process jobs)', env: {}, cleanup: async () => undefined }];
  const redisUrl = process.env.GW_TEST_REDIS_URL;
  if (redisUrl) list.push({ name: 'sqlite + redis (in-process jobs, Redis counters)', env: { GW_REDIS_URL: redisUrl, GW_REDIS_PREFIX: `gwrestart:${randomBytes(4).toString('hex')}:` }, cleanup: async () => undefined });
  const databaseUrl = process.env.GW_TEST_DATABASE_URL;
  if (databaseUrl) {
    // gw's own schema through the connection's search_path; pg-boss keeps its tables beside it, in <schema>_jobs.
    const schema = `restart_${randomBytes(4).toString('hex')}`;
    const url = new URL(databaseUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    list.push({
      name: 'postgres (pg-boss)',
      env: { GW_DATABASE_URL: url.toString() },
      cleanup: async () => {
        const admin = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
        await admin.raw(`drop schema if exists "${schema}" cascade`);
        await admin.raw(`drop schema if exists "${schema}_jobs" cascade`);
        await admin.destroy();
      },
    });
    list[list.length - 1]!.env.GW_TEST_CREATE_SCHEMA = schema;
  }
  return list;
}

for (const variant of variants()) {
  describe(`a 1,000-line batch across a gw crash: ${variant.name}`, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-batch-restart-'));
    let child: ChildProcess | undefined;
    after(async () => {
      if (child && child.exitCode === null) {
        child.kill('SIGKILL');
        await new Promise((resolve) => child!.once('exit', resolve));
      }
      await variant.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    });

    async function startGw(port: number): Promise<ChildProcess> {
      const { GW_TEST_CREATE_SCHEMA: schema, ...env } = variant.env;
      if (schema && process.env.GW_TEST_DATABASE_URL) {
        const admin = knexFactory({ client: 'pg', connection: process.env.GW_TEST_DATABASE_URL, pool: { min: 0, max: 1 } });
        await admin.raw(`create schema if not exists "${schema}"`);
        await admin.destroy();
      }
      const started = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        cwd: path.resolve(import.meta.dirname, '../..'),
        env: {
          PATH: process.env.PATH,
          GW_DATA_DIR: dataDir,
          GW_PORT: String(port),
          GW_HOST: '127.0.0.1',
          GW_ADMIN_API_KEY: ADMIN_KEY,
          GW_LOG_LEVEL: 'info',
          GW_REQUEST_LOG_LEVEL: 'silent',
          TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
          GW_JOBS_LEASE_SECONDS: '3',
          GW_JOBS_POLL_MS: '100',
          GW_BATCH_CONCURRENCY: String(CONCURRENCY),
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      started.stdout!.on('data', (chunk) => (output += chunk));
      started.stderr!.on('data', (chunk) => (output += chunk));
      await untilListening(started, () => output, 120_000);
      return started;
    }

    test('every line is accounted for once, and only lines in flight at the crash reached the upstream twice', async () => {
      const upstream = await startSlowUpstream();
      try {
        const port = await freePort();
        child = await startGw(port);
        const client = new OpenAI({
          apiKey: 'sk-upstream',
          baseURL: `http://127.0.0.1:${port}/v1`,
          maxRetries: 0,
          defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url },
        });
        const jsonl = Array.from({ length: LINES }, (_, i) =>
          JSON.stringify({ custom_id: `line-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `line-${i}` }] } }),
        ).join('\n');
        const input = await client.files.create({ file: await toFile(Buffer.from(jsonl), 'thousand.jsonl'), purpose: 'batch' });
        const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });

        // Let it get well into the run, then kill the process without warning.
        let seen = await client.batches.retrieve(created.id);
        for (let i = 0; i < 3000 && (seen.request_counts?.completed ?? 0) < 150; i += 1) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          seen = await client.batches.retrieve(created.id);
        }
        assert.equal(seen.status, 'in_progress', 'the crash lands mid-batch');
        assert.ok(seen.request_counts!.completed < LINES);
        child.kill('SIGKILL');
        await new Promise((resolve) => child!.once('exit', resolve));
        const callsAtCrash = [...upstream.calls.values()].reduce((a, b) => a + b, 0);
        assert.ok(callsAtCrash < LINES, `the batch was cut short (${callsAtCrash} calls)`);

        child = await startGw(port);
        let batch = await client.batches.retrieve(created.id);
        for (let i = 0; i < 6000 && !['completed', 'failed', 'cancelled', 'expired'].includes(batch.status); i += 1) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          batch = await client.batches.retrieve(created.id);
        }
        assert.equal(batch.status, 'completed');
        assert.deepEqual(batch.request_counts, { total: LINES, completed: LINES, failed: 0 });
        assert.equal(batch.error_file_id, null);

        const output = (await (await client.files.content(batch.output_file_id!)).text()).trim().split('\n');
        assert.equal(output.length, LINES);
        const ids = output.map((line) => (JSON.parse(line) as { custom_id: string }).custom_id);
        assert.equal(new Set(ids).size, LINES, 'each line has exactly one result');
        assert.deepEqual(ids, Array.from({ length: LINES }, (_, i) => `line-${i}`), 'results are in input order');

        // Every line reached the upstream; a second call only for lines in flight when the process died.
        assert.equal(upstream.calls.size, LINES);
        const twice = [...upstream.calls.values()].filter((n) => n > 1).length;
        assert.ok(twice <= CONCURRENCY * 2, `${twice} lines were sent twice`);
      } finally {
        await upstream.close();
      }
    });
  });
}
