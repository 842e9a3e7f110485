/** GW_WORKERS=2 on the embedded default: SQLite, no Redis; the primary owns counters, cache, bus and the log writer (test/workers/gw-workers.ts). */
import path from 'node:path';
import knexFactory from 'knex';
import { describeWorkers } from './gw-workers.js';

describeWorkers({
  name: 'sqlite, no redis',
  env: {},
  setup: async () => undefined,
  countLogRows: async (dataDir) => {
    const db = knexFactory({ client: 'better-sqlite3', connection: { filename: path.join(dataDir, 'gw.sqlite') }, useNullAsDefault: true });
    try {
      return Number((await db('request_logs').count({ n: '*' }).first())?.n);
    } finally {
      await db.destroy();
    }
  },
  cleanup: async () => undefined,
});
