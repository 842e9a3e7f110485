/**
 * An instance killed mid-run, for real (runs-kill*.test.ts, one file per store so each has the
 * runner's whole time budget): gw runs as its own process (the entry `make run` starts), holds two
 * runs in a model turn (one streamed to its client, one a background job), and gets SIGKILL. A
 * second instance on the same store fails both runs cleanly with `last_error.code: server_error`
 * once their lease lapses (GW_RUN_LEASE_SECONDS, short here), so no run stays in_progress, and then
 * serves a new run on the same thread.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { Knex } from 'knex';
import OpenAI from 'openai';
import { startFakeOpenAi } from './fake-openai.js';
import { freePort, until, untilListening } from './processes.js';

const ADMIN_KEY = 'gw-test-admin-key-runkill-0123456789';
const ROOT = path.resolve(import.meta.dirname, '../..');
/** Every wait is bounded: a run settles within a few leases; a process (tsx compiling gw) starts within three minutes on a crowded machine. */
const START_MS = 180_000;

export interface Variant {
  name: string;
  /** The second instance runs beside the first before the kill (else it starts after it). */
  beside: boolean;
  env: Record<string, string>;
  setup(): Promise<void>;
  /** The store both instances share, for the final check. */
  db(dataDir: string): Knex;
  cleanup(): Promise<void>;
}

export function describeRunKill(variant: Variant): void {
  describe(`a gw instance killed mid-run: ${variant.name}`, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-runkill-'));
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

    async function startGw(): Promise<{ child: ChildProcess; url: string }> {
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
          GW_LOG_LEVEL: 'info',
          GW_REQUEST_LOG_LEVEL: 'silent',
          TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
          GW_RUN_LEASE_SECONDS: '2',
          GW_JOBS_POLL_MS: '100',
          ...variant.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stdout!.on('data', (chunk) => (output += chunk));
      child.stderr!.on('data', (chunk) => (output += chunk));
      const url = `http://127.0.0.1:${port}`;
      await untilListening(child, () => output, START_MS);
      return { child, url };
    }

    test('the other instance fails both runs with server_error, none stays in_progress, and the thread runs again', async () => {
      const fake = await startFakeOpenAi();
      try {
        await variant.setup();
        const first = await startGw();
        const clientOf = (url: string) =>
          new OpenAI({ apiKey: 'sk-upstream', baseURL: `${url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': fake.url } });
        const a = clientOf(first.url);
        const asst = await a.beta.assistants.create({ model: 'gpt-4o-mini' });
        fake.next({ kind: 'hang' }, { kind: 'hang' });

        // A streamed run: executed by the instance holding its client's connection.
        const stream = a.beta.threads.createAndRunStream({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'streamed' }] } });
        const streamedRun = new Promise<OpenAI.Beta.Threads.Run>((resolve) => stream.on('event', (event) => event.event === 'thread.run.in_progress' && resolve(event.data)));
        const streamEnd = stream.finalRun().catch((error: unknown) => error);
        const streamed = await streamedRun;
        // A background run: its turn is a job, taken by the only instance there is.
        const background = await a.beta.threads.createAndRun({ assistant_id: asst.id, thread: { messages: [{ role: 'user', content: 'background' }] } });
        await until('the background run in a turn', async () => ((await a.beta.threads.runs.retrieve(background.id, { thread_id: background.thread_id })).status === 'in_progress' ? true : undefined));
        await until('both model calls upstream', async () => (fake.requests.length >= 2 ? true : undefined));

        const second = variant.beside ? await startGw() : undefined;
        first.child.kill('SIGKILL');
        await new Promise((resolve) => first.child.once('exit', resolve));
        assert.ok((await streamEnd) instanceof Error, 'the streamed client saw its connection drop');
        const survivor = second ?? (await startGw());
        const b = clientOf(survivor.url);

        for (const run of [streamed, background]) {
          const settled = await until(`run ${run.id} to settle`, async () => {
            const seen = await b.beta.threads.runs.retrieve(run.id, { thread_id: run.thread_id });
            return ['queued', 'in_progress', 'cancelling'].includes(seen.status) ? undefined : seen;
          });
          assert.equal(settled.status, 'failed');
          assert.equal(settled.last_error?.code, 'server_error');
          assert.ok(settled.failed_at);
        }
        const db = variant.db(dataDir);
        try {
          const rows = (await db('assistant_runs').select('id', 'status', 'state')) as Array<{ id: string; status: string; state: unknown }>;
          assert.deepEqual(rows.filter((row) => ['in_progress', 'cancelling'].includes(row.status)), [], 'no run left in a turn');
          for (const row of rows) assert.equal((typeof row.state === 'string' ? JSON.parse(row.state) : row.state).sealedHeaders, null, 'the sealed provider headers are erased');
        } finally {
          await db.destroy();
        }

        // The surviving instance serves the thread again.
        const again = await b.beta.threads.runs.createAndPoll(background.thread_id, { assistant_id: asst.id }, { pollIntervalMs: 50 });
        assert.equal(again.status, 'completed', JSON.stringify(again.last_error));
      } finally {
        await fake.close();
      }
    });
  });
}
