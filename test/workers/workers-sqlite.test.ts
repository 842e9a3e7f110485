/** GW_WORKERS=2 on the embedded default: SQLite, no Redis; the primary owns counters, cache, bus and the log writer (test/workers/gw-workers.ts). */
import path from 'node:path';
import knexFactory from 'knex';
import { describeWorkers } from './gw-workers.js';

describeWorkers({
  name: 'sqlite, no redis',
  env: {},
  setup: async () => undefined,
  logTraceIds: async (dataDir) => {
    const db = knexFactory({ client: 'better-sqlite3', connection: { filename: path.join(dataDir, 'gw.sqlite') }, useNullAsDefault: true });
    try {
      return ((await db('request_logs').select('trace_id')) as Array<{ trace_id: string }>).map((row) => row.trace_id);
    } finally {
      await db.destroy();
    }
  },
  cleanup: async () => undefined,
});
