/**
 * What the end-to-end tests of real CLIs (Claude Code, the Codex CLI) share: the CLI installed
 * outside the repo by its scripts/ci script, a scratch work folder holding a note and a scratch HOME,
 * and a bounded run whose traffic cannot leave the machine.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Installing a CLI (first run on a machine) and each run are bounded. */
const INSTALL_MS = 300_000;
const RUN_MS = 120_000;

/** Runs scripts/ci/<script> (which installs the tool once per machine) and returns what it prints. */
export function installedTool(script: string, args: string[] = []): string {
  return execFileSync(path.join(ROOT, 'scripts/ci', script), args, { encoding: 'utf8', timeout: INSTALL_MS, stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

export interface CliScratch {
  work: string;
  home: string;
  notePath: string;
  remove(): void;
}

/** A work folder with note.txt holding `note`, and an empty HOME, both removed by remove(). */
export function cliScratch(prefix: string, note: string): CliScratch {
  const work = mkdtempSync(path.join(tmpdir(), `${prefix}-work-`));
  const home = mkdtempSync(path.join(tmpdir(), `${prefix}-home-`));
  const notePath = path.join(work, 'note.txt');
  writeFileSync(notePath, `${note}\n`);
  return { work, home, notePath, remove: () => [work, home].forEach((dir) => rmSync(dir, { recursive: true, force: true })) };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a CLI in `cwd` with only PATH, HOME and `env`, killed after RUN_MS. */
export async function runCli(command: string[], cwd: string, home: string, env: Record<string, string>): Promise<CliRun> {
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      // Anything not for loopback goes to a proxy that is not there: nothing leaves the machine.
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: '127.0.0.1,localhost',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (part: Buffer) => (stdout += part.toString()));
  child.stderr.on('data', (part: Buffer) => (stderr += part.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}
