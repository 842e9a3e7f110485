/**
 * The npm package as a user gets it: the `npm pack` tarball (GW_NPX_TARBALL, made by `make pack`)
 * installed into an empty folder and started with one command, `npx gw start --port --data-dir`.
 * GW_NPX_NODE_DIR names another Node (bin/node, include/node) to install and run it with.
 * Run by `make npx-test` (network: the npm registry; the native modules compile on install).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GW_VERSION } from '../../core/version.js';
import { assertLogRowKept, freePort, mockChat, waitForLogRow, waitUntilReady } from './smoke.js';

const tarball = process.env.GW_NPX_TARBALL;
const nodeDir = process.env.GW_NPX_NODE_DIR;
const ADMIN_KEY = 'gw-npx-test-admin-key-0123456789';

/** The user's shell: PATH finds the chosen Node first; native modules compile against its headers. */
const userEnv: NodeJS.ProcessEnv = { ...process.env, GW_ADMIN_API_KEY: ADMIN_KEY };
if (nodeDir) {
  userEnv.PATH = `${path.join(nodeDir, 'bin')}${path.delimiter}${process.env.PATH}`;
  userEnv.npm_config_nodedir = nodeDir;
}
for (const name of Object.keys(userEnv)) if (name.startsWith('GW_') && name !== 'GW_ADMIN_API_KEY') delete userEnv[name];

describe('npx gw from the packed tarball', { skip: tarball ? false : 'GW_NPX_TARBALL is not set (make npx-test sets it)' }, () => {
  let folder: string;
  const children: ChildProcess[] = [];

  before(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'gw-npx-'));
    // Bounded: dependencies from the registry (or npm's cache) and two native modules compiled.
    const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', tarball!], { cwd: folder, env: userEnv, encoding: 'utf8', timeout: 15 * 60_000 });
    assert.equal(install.status, 0, `npm install of the tarball failed:\n${install.stdout}\n${install.stderr}`);
  });
  after(() => {
    for (const child of children) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group has already ended
      }
    }
    rmSync(folder, { recursive: true, force: true });
  });

  /**
   * Stops gw as Ctrl-C or a supervisor would (the whole group). npx itself exits at once, so gw's
   * drain is read from its log, and its end from its port closing.
   */
  async function stop(run: ReturnType<typeof npx>, base: string): Promise<void> {
    process.kill(-run.child.pid!, 'SIGTERM');
    const deadline = Date.now() + 60_000;
    while (!/request log queue written at shutdown/.test(run.output())) {
      assert.ok(Date.now() < deadline, `gw did not finish its drain:\n${run.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.match(run.output(), /gw shutting down/);
    for (;;) {
      const open = await fetch(`${base}/health`).then(() => true, () => false);
      if (!open) return;
      assert.ok(Date.now() < deadline, 'gw still answers after its drain');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  function npx(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
    let output = '';
    // A process group of its own, as a terminal gives a command: a stop signals npx and gw together.
    const child = spawn('npx', ['gw', ...args], { cwd: folder, env: userEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.push(child);
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, output: () => output, exited };
  }

  it('ships prebuilt JavaScript, the bundled spec and the console, and installs no TypeScript', () => {
    const installed = path.join(folder, 'node_modules', 'gw');
    assert.ok(existsSync(path.join(installed, 'dist', 'server', 'main.js')));
    assert.ok(existsSync(path.join(installed, 'generated', 'openapi.json')));
    assert.ok(existsSync(path.join(installed, 'web', 'dist', 'index.html')));
    const sources = spawnSync('find', [installed, '-name', '*.ts', '-not', '-name', '*.d.ts'], { encoding: 'utf8' }).stdout.trim();
    assert.equal(sources, '', 'no TypeScript source in the package');
    assert.ok(!existsSync(path.join(folder, 'node_modules', 'typescript')), 'no compiler installed: production dependencies only');
    assert.ok(!existsSync(path.join(folder, 'node_modules', 'tsx')));
  });

  it('prints its version', () => {
    const version = spawnSync('npx', ['gw', '--version'], { cwd: folder, env: userEnv, encoding: 'utf8', timeout: 60_000 });
    assert.equal(version.stdout.trim(), GW_VERSION);
  });

  it('starts with one command, answers a mock_response chat, logs it, stops on SIGTERM and keeps its data', async () => {
    const port = await freePort();
    const dataDir = path.join(folder, 'gw-data');
    const base = `http://127.0.0.1:${port}`;

    const first = npx(['start', '--port', String(port), '--data-dir', dataDir]);
    await waitUntilReady(base, first.output);
    const traceId = await mockChat(base, ADMIN_KEY);
    await waitForLogRow(base, ADMIN_KEY, traceId);
    const consolePage = await fetch(`${base}/console/`);
    assert.equal(consolePage.status, 200);
    assert.match(await consolePage.text(), /<div id="root">/);
    await stop(first, base);
    assert.ok(existsSync(path.join(dataDir, 'gw.sqlite')), 'the SQLite file is in --data-dir');

    // `npx gw` alone starts too; the same data directory keeps the row.
    const second = npx(['--port', String(port), '--data-dir', dataDir]);
    await waitUntilReady(base, second.output);
    await assertLogRowKept(base, ADMIN_KEY, traceId);
    await stop(second, base);
  });
});
