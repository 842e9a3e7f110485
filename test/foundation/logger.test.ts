import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const logger = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core/logger.ts');

/** Runs a script in a child process with gw's logger as `log` and returns its standard output. */
function run(script: string): string {
  const source = `import { createLogger } from ${JSON.stringify(logger)}; const log = createLogger('info'); ${script}`;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { encoding: 'utf8' });
}

describe('standard output logger (lines held briefly, written together)', () => {
  it('writes every line, in order, when the process exits in the turn that logged them', () => {
    const output = run(`for (let i = 0; i < 200; i++) log.info({ i }, 'line'); log.error('last'); process.exit(0);`);
    const lines = output.trim().split('\n').map((line) => JSON.parse(line) as { i?: number; msg: string });
    assert.deepEqual(lines.map((line) => line.i ?? line.msg), [...Array.from({ length: 200 }, (_, i) => i), 'last']);
  });

  it('writes lines of later turns, and lines left when the loop runs dry', () => {
    const output = run(`log.info('first'); setTimeout(() => { log.info('second'); setImmediate(() => log.warn('third')); }, 5);`);
    assert.deepEqual(output.trim().split('\n').map((line) => (JSON.parse(line) as { msg: string }).msg), ['first', 'second', 'third']);
  });

  it('shares one output between loggers, so their lines keep their order', () => {
    const output = run(`const other = (await import(${JSON.stringify(logger)})).createLogger('info'); log.info('a'); other.info('b'); log.info('c'); process.exit(0);`);
    assert.deepEqual(output.trim().split('\n').map((line) => (JSON.parse(line) as { msg: string }).msg), ['a', 'b', 'c']);
  });
});
