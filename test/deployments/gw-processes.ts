/**
 * gw as separate processes on loopback (the entry `make run` starts), each with its own data
 * directory, port and encryption key, for control-plane and data-plane tests; and a Postgres
 * database of its own for a process that needs one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { freePort, until as poll, untilListening } from '../helpers/processes.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Bounded waits: a sync is due every few hundred ms; a process (tsx compiling gw) starts within three minutes on a crowded machine. */
const WAIT_MS = 60_000;
const START_MS = 180_000;

/** Polls as the helper does, a probe that throws counting as "not yet" (a process still starting refuses connections). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, waitMs = WAIT_MS): Promise<T> {
  return poll(what, () => probe().catch(() => undefined), waitMs);
}

/** A database of its own for a gw process (it takes a whole database, not a schema), dropped after. */
export async function ownPostgresDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `gw_dp_${randomBytes(6).toString('hex')}`;
  const server = () => knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  const creating = server();
  await creating.raw(`create database "${name}"`);
  await creating.destroy();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      const dropping = server();
      await dropping.raw(`drop database if exists "${name}" with (force)`);
      await dropping.destroy();
    },
  };
}

export interface Gw {
  url: string;
  dataDir: string;
  /** Starts the process with its environment plus `extraEnv` (for this start only). */
  start(extraEnv?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

/** Launches gw processes and cleans every one up (process, data directory) in `close`. */
export class GwProcesses {
  private readonly children = new Set<ChildProcess>();
  private readonly dirs: string[] = [];

  async gw(name: string, env: Record<string, string>): Promise<Gw> {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), `gw-${name}-`));
    this.dirs.push(dataDir);
    const url = `http://127.0.0.1:${port}`;
    const encryptionKey = randomBytes(32).toString('hex');
    const children = this.children;
    let child: ChildProcess | undefined;
    return {
      url,
      dataDir,
      async start(extraEnv = {}) {
        const started = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH,
            GW_DATA_DIR: dataDir,
            GW_PORT: String(port),
            GW_HOST: '127.0.0.1',
            GW_ENCRYPTION_KEY: encryptionKey,
            GW_LOG_LEVEL: 'info',
            GW_REQUEST_LOG_LEVEL: 'silent',
            GW_LOG_FLUSH_INTERVAL_MS: '100',
            GW_JOBS_POLL_MS: '100',
            GW_SHUTDOWN_TIMEOUT_MS: '5000',
            GW_SHUTDOWN_GRACE_MS: '0',
            TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
            ...env,
            ...extraEnv,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child = started;
        children.add(started);
        let output = '';
        started.stdout!.on('data', (chunk) => (output += chunk));
        started.stderr!.on('data', (chunk) => (output += chunk));
        await untilListening(started, () => output, START_MS);
      },
      async stop() {
        if (!child || child.exitCode !== null) return;
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      },
    };
  }

  async close(): Promise<void> {
    for (const child of this.children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }
}
