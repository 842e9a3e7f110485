import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './load-generator.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs one load job in its own process (load-generator.ts), so it never shares an event loop with a server. */
export function runLoad(job: LoadJob): Promise<LoadResult> {
  const child = fork(path.join(here, 'load-generator.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (result: LoadResult) => resolve(result));
    child.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited with ${code}`)));
    child.send(job);
  });
}

/** Stops the bench's servers and waits until each has exited. */
export function stopAll(children: readonly ChildProcess[]): Promise<void> {
  return Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  ).then(() => undefined);
}
