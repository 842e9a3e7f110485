/**
 * A gw process killed (SIGKILL) in the middle of two runs, on a SQLite file: gw started again on
 * the same store fails both cleanly (test/helpers/run-kill.ts).
 */
import path from 'node:path';
import knexFactory from 'knex';
import { describeRunKill } from '../helpers/run-kill.js';

describeRunKill({
  name: 'sqlite file (restart on the same store)',
  beside: false,
  env: {},
  setup: async () => undefined,
  db: (dataDir) => knexFactory({ client: 'better-sqlite3', connection: { filename: path.join(dataDir, 'gw.sqlite') }, useNullAsDefault: true }),
  cleanup: async () => undefined,
});
