import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { bootstrap } from '../../server/bootstrap.js';
import { allScopes } from '../../core/scopes.js';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp } from '../helpers/test-app.js';

for (const engine of fullEngines()) {
  describe(`bootstrap (${engine.name})`, () => {
    test('first start creates one organisation, a default workspace, an owner and an admin key with every scope', async () => {
      const app = await startTestApp({ engine });
      try {
        const { db } = app.services;
        assert.equal((await db('organisations').count({ n: '*' }).first())?.n, 1);
        const workspace = await db('workspaces').where({ id: app.boot.workspaceId }).first();
        assert.ok(workspace.is_default);
        assert.equal((await db('users').first()).role, 'owner');
        const key = await app.http.get('/v1/api-keys').set('x-gw-api-key', app.adminKey);
        assert.equal(key.status, 200);
        assert.deepEqual([...key.body.data[0].scopes].sort(), [...allScopes()].sort());

        const again = await bootstrap(app.services);
        assert.equal(again.organisationId, app.boot.organisationId);
        assert.equal(again.generatedAdminKey, undefined);
        assert.equal((await db('organisations').count({ n: '*' }).first())?.n, 1);
        assert.equal((await db('api_keys').count({ n: '*' }).first())?.n, 1, 'no second admin key');
      } finally {
        await app.close();
      }
    });
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the process entry (what make run starts)', () => {
  test('starts on SQLite, prints a generated admin key once, serves /health, and the key works', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-main-'));
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { PATH: process.env.PATH, GW_DATA_DIR: dataDir, GW_PORT: String(port), GW_HOST: '127.0.0.1', GW_LOG_LEVEL: 'info', GW_SHUTDOWN_GRACE_MS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    try {
      const deadline = Date.now() + 120_000;
      while (!/gw listening/.test(output)) {
        assert.ok(Date.now() < deadline, `gw did not start: ${output}`);
        assert.equal(child.exitCode, null, `gw exited: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const key = output.match(/admin API key[^:]*: (gw-\S+)/)?.[1];
      assert.ok(key, 'the generated admin key is printed');
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      assert.equal(health.status, 200);
      const keys = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, { headers: { 'x-gw-api-key': key } });
      assert.equal(keys.status, 200);
      assert.ok(!(await keys.text()).includes(key), 'the secret is never shown again');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
