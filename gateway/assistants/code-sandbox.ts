/**
 * Runs the code interpreter's Python: each call in its own child process (code-sandbox-child.ts),
 * killed when it runs past the time limit or grows past the memory limit. Loading Python takes
 * seconds, so gw keeps one process loaded and waiting (started at the first call): a call takes
 * it and a fresh one starts loading behind it. A process runs one call and exits, so nothing one
 * call leaves in Python (globals, patched modules) reaches another run or workspace.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SandboxLimits {
  timeoutMs: number;
  memoryMb: number;
  maxOutputBytes: number;
}

export interface SandboxFile {
  name: string;
  data: Buffer;
}

export interface SandboxResult {
  logs: string;
  /** The Python exception, a timeout or a killed process. */
  error?: string;
  /** Files under /mnt/data that the code created or changed. */
  files: SandboxFile[];
}

/** Calls running at once per gw instance; more wait their turn. */
const MAX_CONCURRENT = 2;
const LOAD_TIMEOUT_MS = 120_000;
const MAX_FILE_BYTES = 32 * 1024 * 1024;
const MEMORY_POLL_MS = 200;

interface Loaded {
  child: ChildProcess;
  ready: Promise<void>;
}

function childPath(): string {
  const here = fileURLToPath(import.meta.url);
  return here.slice(0, -extname(here).length).replace(/code-sandbox$/, 'code-sandbox-child') + extname(here);
}

export class CodeSandbox {
  private spare: Loaded | undefined;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  constructor(private readonly limits: SandboxLimits) {}

  /** Runs one call; `signal` (the run cancelled) stops it. */
  async run(code: string, files: readonly SandboxFile[], signal?: AbortSignal): Promise<SandboxResult> {
    if (signal?.aborted) return cancelled();
    await this.slot();
    try {
      const loaded = this.spare ?? this.load();
      this.spare = undefined;
      if (!this.closed) this.spare = this.load();
      // A call in flight keeps gw running until it ends.
      loaded.child.channel?.ref();
      try {
        await loaded.ready;
      } catch (error) {
        return { logs: '', error: `The Python sandbox did not start: ${(error as Error).message}`, files: [] };
      }
      if (signal?.aborted) {
        loaded.child.kill('SIGKILL');
        return cancelled();
      }
      return await this.call(loaded.child, code, files, signal);
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  close(): void {
    this.closed = true;
    this.spare?.child.kill('SIGKILL');
    this.spare = undefined;
  }

  private async slot(): Promise<void> {
    if (this.running >= MAX_CONCURRENT) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
  }

  private load(): Loaded {
    const path = childPath();
    const flags = ['--disallow-code-generation-from-strings', `--max-old-space-size=${this.limits.memoryMb}`];
    const child = fork(path, [], { execArgv: path.endsWith('.ts') ? ['--import', 'tsx', ...flags] : flags, stdio: ['ignore', 'ignore', 'ignore', 'ipc']});
    // A waiting process does not keep gw running.
    child.unref();
    child.channel?.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('loading Python timed out')), LOAD_TIMEOUT_MS);
      timer.unref();
      child.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (exitCode) => reject(new Error(`the process exited (${exitCode})`)));
      child.once('error', reject);
    });
    ready.catch(() => child.kill('SIGKILL'));
    return { child, ready };
  }

  private call(child: ChildProcess, code: string, files: readonly SandboxFile[], signal?: AbortSignal): Promise<SandboxResult> {
    const { timeoutMs, memoryMb, maxOutputBytes } = this.limits;
    return new Promise<SandboxResult>((resolve) => {
      let stopped: string | undefined;
      const stop = (reason: string) => {
        stopped ??= reason;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(() => stop(`Execution timed out after ${timeoutMs / 1000} s and was stopped`), timeoutMs);
      const onAbort = () => stop(CANCELLED);
      signal?.addEventListener('abort', onAbort, { once: true });
      const watch = setInterval(() => void rss(child.pid).then((bytes) => bytes > memoryMb * 1024 * 1024 && stop(`Execution used more than ${memoryMb} MB of memory and was stopped`)), MEMORY_POLL_MS);
      const done = (result: SandboxResult) => {
        clearTimeout(timer);
        clearInterval(watch);
        signal?.removeEventListener('abort', onAbort);
        child.channel?.unref();
        resolve(result);
      };
      child.once('message', (message: { logs: string; error?: string; files: Array<{ name: string; data: string }> }) =>
        done({ logs: message.logs, error: message.error && pythonError(message.error), files: message.files.map((file) => ({ name: file.name, data: Buffer.from(file.data, 'base64') })) }),
      );
      child.once('exit', () => done({ logs: '', error: stopped ?? 'The Python process stopped unexpectedly', files: [] }));
      child.send({ code, files: files.map((file) => ({ name: file.name, data: file.data.toString('base64') })), maxOutputBytes, maxFileBytes: MAX_FILE_BYTES });
    });
  }
}

const CANCELLED = 'Execution was stopped: the run was cancelled';

function cancelled(): SandboxResult {
  return { logs: '', error: CANCELLED, files: [] };
}

/** Resident memory of a process (Linux); 0 where /proc is not there, so the time limit still holds. */
async function rss(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : 0;
}

/** The traceback of the model's code, without the frames of Pyodide's own runner. */
function pythonError(message: string): string {
  const lines = message.split('\n');
  const kept: string[] = [];
  let inRunner = false;
  for (const line of lines) {
    if (/^ {2}File "/.test(line)) inRunner = !line.includes('"<code>"');
    else if (!line.startsWith('    ')) inRunner = false;
    if (!inRunner) kept.push(line);
  }
  return kept.join('\n').trim();
}
