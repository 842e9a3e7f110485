import { seededSchema } from './copy-seed.js';
import { LogAnalytics } from '../store/log-analytics.js';
const DAY = 86_400_000;
const rows = Number(process.argv[2]);
const { db, ids } = await seededSchema('postgres://postgres@127.0.0.1:5432/gwbench', rows, false);
const end = ids.end - 437_123;
const week = { organisation_id: ids.organisationId, start: end - 7 * DAY, end };
const a = new LogAnalytics(db);
let captured: { sql: string; bindings: unknown[] } | undefined;
db.on('query', (q: { sql: string; bindings: unknown[] }) => { if (q.sql.includes('ceil(ln')) captured = q; });
await a.groups(week, 'model');
const sql = db.raw(captured!.sql.replace(/\$\d+/g, "?"), captured!.bindings as never).toQuery();
for (const mem of ['32MB', '4MB', '1MB', '32MB', '4MB', '1MB']) {
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    await db.transaction(async (trx) => {
      await trx.raw(`set local jit = off; set local max_parallel_workers_per_gather = 0; set local work_mem = '${mem}'`);
      const t = performance.now();
      await trx.raw(sql);
      times.push(performance.now() - t);
    });
  }
  times.sort((x, y) => x - y);
  console.log(rows, mem, 'median', times[7]!.toFixed(2));
}
await db.destroy();
