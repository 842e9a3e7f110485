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

  it('a line writer writes what the logger writes for the same fields, and nothing below the logger level', () => {
    const fields = `{ trace_id: 't-1', route: 'chat.completions', status: 200, provider: null, latency_ms: 12.5, stream: false, cost: 0, cost_unpriced: undefined, quote: 'a "b" \\\\ c\\n', ratio: NaN }`;
    const output = run(
      `const { lineWriter } = await import(${JSON.stringify(logger)}); const fields = ${fields};` +
        ` lineWriter(log, 'info')(fields, 'request'); log.info(fields, 'request'); lineWriter(log, 'warn')(fields, 'warned');` +
        ` lineWriter(log, 'debug')(fields, 'below'); log.level = 'error'; lineWriter(log, 'info')(fields, 'below'); process.exit(0);`,
    );
    const lines = output.trim().split('\n');
    assert.equal(lines.length, 3, 'the two info lines and the warn line; debug, and info once the level is error, write nothing');
    const [fast, pinos, warned] = lines.map((line) => line.replace(/"time":"[^"]+"/, '"time":"T"'));
    assert.equal(fast, pinos, 'the same text as pino writes, key order included');
    const parsed = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.ok(!Number.isNaN(Date.parse(parsed.time as string)), 'an ISO time');
    assert.equal(parsed.quote, 'a "b" \\ c\n');
    assert.equal((JSON.parse(warned!) as { level: number }).level, 40);
  });
});
