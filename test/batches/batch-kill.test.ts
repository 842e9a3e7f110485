/**
 * A gw instance killed (SIGKILL) in the middle of a batch while a second instance runs beside it:
 * the second takes the dead one's work over once its short lease lapses (GW_JOBS_LEASE_SECONDS=2:
 * the batch's job, renewed by heartbeat while it ran, and the lines it had in flight), with no
 * restart. The batch completes with one result per line, and the upstream saw each line once,
 * plus at most the lines in flight at the kill. Bounds are generous; nothing is timed.
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
import { freePort, until } from '../helpers/processes.js';

const LINES = 40;
const CONCURRENCY = 4;
const ADMIN_KEY = 'gw-test-admin-key-batchkill-0123456789';
const ROOT = path.resolve(import.meta.dirname, '../..');
/** A process (tsx compiling gw) starts within three minutes on a crowded machine; a batch settles well within two. */
const START_MS = 180_000;
const SETTLE_MS = 120_000;

/** An OpenAI-shaped upstream that answers each chat after a pause, counting calls per line. */
async function slowUpstream(): Promise<{ url: string; calls: Map<string, number>; total: () => number; close: () => Promise<void> }> {
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
      }, 300);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    calls,
    total: () => [...calls.values()].reduce((sum, n) => sum + n, 0),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Variant {
  name: string;
  env: Record<string, string>;
  setup(): Promise<void>;
  cleanup(): Promise<void>;
}

function variants(): Variant[] {
  const list: Variant[] = [{ name: 'two instances on one SQLite file (in-process jobs)', env: {}, setup: async () => undefined, cleanup: async () => undefined }];
  const databaseUrl = process.env.GW_TEST_DATABASE_URL;
  if (databaseUrl) {
    const database = `gw_batchkill_${randomBytes(4).toString('hex')}`;
    const url = new URL(databaseUrl);
    url.pathname = `/${database}`;
    const admin = () => knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
    list.push({
      name: 'two instances on Postgres (pg-boss)',
      env: { GW_DATABASE_URL: url.toString() },
      setup: async () => {
        const db = admin();
        await db.raw(`create database "${database}"`);
        await db.destroy();
      },
      cleanup: async () => {
        const db = admin();
        await db.raw(`drop database if exists "${database}" with (force)`);
        await db.destroy();
      },
    });
  }
  return list;
}

for (const variant of variants()) {
  describe(`a gw instance killed mid-batch, another running beside it: ${variant.name}`, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-batch-kill-'));
    const encryptionKey = randomBytes(32).toString('hex');
    const children: ChildProcess[] = [];
    after(async () => {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await new Promise((resolve) => child.once('exit', resolve));
        }
      }
      await variant.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    });

    async function startGw(pollMs: number): Promise<{ child: ChildProcess; url: string }> {
      const port = await freePort();
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          GW_DATA_DIR: dataDir,
          GW_PORT: String(port),
          GW_HOST: '127.0.0.1',
          GW_ADMIN_API_KEY: ADMIN_KEY,
          GW_ENCRYPTION_KEY: encryptionKey,
          GW_LOG_LEVEL: 'warn',
          GW_REQUEST_LOG_LEVEL: 'silent',
          TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
          GW_JOBS_LEASE_SECONDS: '2',
          GW_JOBS_POLL_MS: String(pollMs),
          GW_BATCH_CONCURRENCY: String(CONCURRENCY),
          GW_SHUTDOWN_GRACE_MS: '0',
          ...variant.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stdout!.on('data', (chunk) => (output += chunk));
      child.stderr!.on('data', (chunk) => (output += chunk));
      const url = `http://127.0.0.1:${port}`;
      await until(
        'gw to start',
        async () => {
          assert.equal(child.exitCode, null, `gw exited: ${output}`);
          return (await fetch(`${url}/ready`).then((res) => res.ok, () => false)) || undefined;
        },
        START_MS,
      );
      return { child, url };
    }

    test('the survivor finishes the batch, each line answered once, the upstream called at most once more per line in flight', async () => {
      const upstream = await slowUpstream();
      try {
        await variant.setup();
        // The doomed instance takes the batch's job (it wakes at once on its own enqueue); the survivor polls slowly.
        const doomed = await startGw(100);
        const survivor = await startGw(1000);
        const clientOf = (url: string) =>
          new OpenAI({ apiKey: 'sk-upstream', baseURL: `${url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url } });
        const a = clientOf(doomed.url);
        const jsonl = Array.from({ length: LINES }, (_, i) =>
          JSON.stringify({ custom_id: `line-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `line-${i}` }] } }),
        ).join('\n');
        const input = await a.files.create({ file: await toFile(Buffer.from(jsonl), 'forty.jsonl'), purpose: 'batch' });
        const created = await a.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });

        // Well into the batch, with lines in flight upstream: kill without warning.
        await until('a quarter of the lines done', async () => ((await a.batches.retrieve(created.id)).request_counts?.completed ?? 0) >= LINES / 4 || undefined, SETTLE_MS);
        doomed.child.kill('SIGKILL');
        await new Promise((resolve) => doomed.child.once('exit', resolve));
        const callsAtKill = upstream.total();
        assert.ok(callsAtKill < LINES, `the batch was cut short (${callsAtKill} calls)`);

        const b = clientOf(survivor.url);
        const batch = await until(
          'the survivor to finish the batch',
          async () => {
            const seen = await b.batches.retrieve(created.id);
            return ['completed', 'failed', 'cancelled', 'expired'].includes(seen.status) ? seen : undefined;
          },
          SETTLE_MS,
        );
        assert.equal(batch.status, 'completed');
        assert.deepEqual(batch.request_counts, { total: LINES, completed: LINES, failed: 0 });
        const output = (await (await b.files.content(batch.output_file_id!)).text()).trim().split('\n');
        const ids = output.map((line) => (JSON.parse(line) as { custom_id: string }).custom_id);
        assert.deepEqual(ids, Array.from({ length: LINES }, (_, i) => `line-${i}`), 'one result per line, in input order');

        assert.equal(upstream.calls.size, LINES, 'every line reached the upstream');
        assert.ok(upstream.total() <= LINES + CONCURRENCY, `${upstream.total()} upstream calls for ${LINES} lines`);
      } finally {
        await upstream.close();
      }
    });
  });
}
