/**
 * gw as a child process in tests: a free loopback port, a bounded wait for a condition, and gw
 * started from its entry (`server/main.ts`, as `make run` does) until it says it listens.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '../..');

/** A port free on 127.0.0.1 now (the test binds it next, before anything else asks for one). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `probe` until it gives a value (undefined: not yet); throws naming `what` after `waitMs`. A probe that throws fails the wait. */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, waitMs = 60_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface GwChild {
  child: ChildProcess;
  port: number;
  /** Everything gw wrote to stdout and stderr so far. */
  output: () => string;
}

/** gw on a free port with `env` (and PATH only from this process), once it logs that it listens. */
export async function startGwProcess(env: Record<string, string>, startMs = 120_000): Promise<GwChild> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH, GW_PORT: String(port), GW_HOST: '127.0.0.1', GW_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await untilListening(child, () => output, startMs);
  return { child, port, output: () => output };
}

/**
 * Waits until gw (started with GW_LOG_LEVEL info or lower) logs that it listens. Polling /health
 * instead could reach another test's process that took the port between freePort and gw's listen.
 */
export async function untilListening(child: ChildProcess, output: () => string, startMs: number): Promise<void> {
  const deadline = Date.now() + startMs;
  while (!/gw listening/.test(output())) {
    assert.ok(Date.now() < deadline, `gw did not start: ${output()}`);
    assert.equal(child.exitCode, null, `gw exited: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
