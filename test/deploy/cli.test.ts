/**
 * The `gw` command (server/cli.ts), which `npx gw` and the image run: its options, its errors, and
 * the package.json that makes it the package's command. The packed package itself: `make npx-test`.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { GW_VERSION } from '../../core/version.js';
import { freePort, waitUntilReady } from './smoke.js';

const CLI = ['--import', 'tsx', 'server/cli.ts'];

function gw(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 180_000 });
}

describe('gw command', () => {
  it('prints its version and its help', () => {
    assert.equal(gw(['--version']).stdout.trim(), GW_VERSION);
    const help = gw(['--help']);
    assert.equal(help.status, 0);
    for (const option of ['--port', '--host', '--data-dir']) assert.ok(help.stdout.includes(option), option);
  });

  it('refuses an unknown command or option with the usage and exit code 2', () => {
    const command = gw(['serve']);
    assert.equal(command.status, 2);
    assert.match(command.stderr, /unknown command "serve"[\s\S]*Usage: gw/);
    const option = gw(['start', '--prot', '1']);
    assert.equal(option.status, 2);
    assert.match(option.stderr, /--prot/);
  });

  it('hands a bad value to the configuration check, which names the setting', () => {
    const port = gw(['start', '--port', 'eighty']);
    assert.equal(port.status, 2);
    assert.match(port.stderr, /GW_PORT must be an integer/);
  });

  it('starts on --port with its SQLite file in --data-dir, over the environment', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-cli-'));
    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, [...CLI, 'start', '--port', String(port), '--data-dir', dataDir], {
      env: { ...process.env, GW_PORT: '1', GW_DATA_DIR: '/nonexistent', GW_ADMIN_API_KEY: 'gw-cli-test-admin-key-0123456789', GW_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      // From sources (tsx compiles at start): no 30 s promise here, the packed npx-test holds that one.
      await waitUntilReady(`http://127.0.0.1:${port}`, () => output, 180_000);
      assert.ok(existsSync(path.join(dataDir, 'gw.sqlite')));
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("is the package's command, at the version gw reports, and the package ships what it reads", () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; bin: Record<string, string>; files: string[] };
    assert.equal(pkg.version, GW_VERSION, 'package.json version and server/version.ts agree');
    assert.deepEqual(pkg.bin, { gw: 'dist/server/cli.js' });
    assert.ok(readFileSync('server/cli.ts', 'utf8').startsWith('#!/usr/bin/env node\n'));
    // dist/ (compiled), the bundled spec and the console: what projectRoot()-relative code reads.
    for (const entry of ['dist/**/*.js', 'generated/openapi.json', 'web/dist/']) assert.ok(pkg.files.includes(entry), entry);
  });
});
