import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Knex } from 'knex';
import { createDb } from '../../store/db.js';
import { migrateToLatest } from '../../store/migrate.js';
import { afterKeyset } from '../../store/pagination.js';
import { storeEngines } from '../helpers/engines.js';
import { privateDb } from '../helpers/test-db.js';

/** The plan of a keyset page over request_logs, as one text. */
async function planOf(db: Knex, postgres: boolean): Promise<string> {
  const query = db('request_logs').select('id').where('organisation_id', 'org');
  afterKeyset(query, '>', 'created_at', 1_790_000_000_000, 'id', 'log_x');
  const { sql, bindings } = query.orderBy('created_at').orderBy('id').limit(100).toSQL();
  if (postgres) {
    return db.transaction(async (trx) => {
      // An empty table would be read whole; the plan we check is the one a large table gets.
      await trx.raw('set local enable_seqscan = off');
      const rows = (await trx.raw(`explain ${sql}`, bindings)).rows as Array<{ 'QUERY PLAN': string }>;
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }
  const rows = (await db.raw(`explain query plan ${sql}`, bindings)) as Array<{ detail: string }>;
  return rows.map((row) => row.detail).join('\n');
}

for (const engine of storeEngines()) {
  describe(`keyset pages (${engine.name})`, () => {
    test('a page after a position seeks to it in the index instead of reading from the start', async () => {
      const { options, drop } = await privateDb(engine.databaseUrl);
      const db = createDb(options);
      try {
        await migrateToLatest(db);
        const plan = await planOf(db, engine.name !== 'sqlite');
        if (engine.name === 'sqlite') assert.match(plan, /USING (COVERING )?INDEX \S+ \([^)]*created_at>\?/, plan);
        else assert.match(plan, /Index Cond: [^\n]*created_at >= /, plan);
      } finally {
        await db.destroy();
        await drop();
      }
    });
  });
}
