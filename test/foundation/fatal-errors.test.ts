/**
 * An error nothing handles is a bug: gw logs it (one structured line with the stack) and exits
 * with code 1 for its supervisor to restart it, rather than dying with a bare stack trace or
 * carrying on in a state nobody checked. The fault is injected into a real gw process by a preloaded
 * test hook (test/helpers/inject-fault.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function runWithFault(fault: 'exception' | 'rejection'): Promise<{ code: number | null; lines: Array<Record<string, unknown>>; output: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-fatal-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/helpers/inject-fault.ts', 'server/main.ts'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: { PATH: process.env.PATH, GW_DATA_DIR: dataDir, GW_PORT: String(port), GW_HOST: '127.0.0.1', GW_LOG_LEVEL: 'info', GW_ADMIN_API_KEY: 'gw-fatal-test-key-0123456789abcdef', GW_TEST_INJECT_FAULT: fault },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    for (let i = 0; !/gw listening/.test(output); i++) {
      assert.ok(i < 1200, `gw did not start: ${output}`);
      assert.equal(child.exitCode, null, `gw exited before the fault: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGUSR2');
    const code = await exited;
    const lines = output.split('\n').flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
    return { code, lines, output };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('an error nothing handles', () => {
  for (const fault of ['exception', 'rejection'] as const) {
    test(`an uncaught ${fault} is logged as one fatal line with its stack, and gw exits with code 1`, async () => {
      const { code, lines, output } = await runWithFault(fault);
      assert.equal(code, 1, output);
      const fatal = lines.find((line) => line.level === 60);
      assert.ok(fatal, `no fatal log line: ${output}`);
      assert.equal(fatal.origin, fault === 'exception' ? 'uncaughtException' : 'unhandledRejection');
      assert.match(String(fatal.msg), /an error nothing handled/);
      const err = fatal.err as { message?: string; stack?: string };
      assert.equal(err.message, 'injected fault for the test');
      assert.match(String(err.stack), /inject-fault\.ts/);
    });
  }
});
