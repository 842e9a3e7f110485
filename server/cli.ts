#!/usr/bin/env node
/**
 * The `gw` command of the npm package (`npx gw`, `npx gw start`) and of the container image: its
 * options are shorthands for the settings of docs/operations.md, then gw starts as `make run` does.
 */
import { parseArgs } from 'node:util';
import { applyCommandLineSettings } from '../core/config.js';
import { GW_VERSION } from '../core/version.js';

const USAGE = `Usage: gw [start] [options]

Starts gw (an AI gateway with its own control plane). Every setting of docs/operations.md is read
from the environment; these options set the most common ones:

  --port <n>         port to listen on (GW_PORT, default 8787)
  --host <address>   address to bind (GW_HOST, default 0.0.0.0)
  --data-dir <dir>   SQLite file and generated encryption key (GW_DATA_DIR, default ./data)
  --version          print gw's version
  --help             print this help
`;

function fail(message: string): never {
  process.stderr.write(`gw: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      version: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  fail((error as Error).message);
}
const { values, positionals } = parsed;

if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (values.version) {
  process.stdout.write(`${GW_VERSION}\n`);
  process.exit(0);
}
if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== 'start')) {
  fail(`unknown command "${positionals.join(' ')}"`);
}
applyCommandLineSettings({ port: values.port, host: values.host, 'data-dir': values['data-dir'] });
await import('./main.js');
