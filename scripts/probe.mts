import { seededSchema } from './copy-seed.js';
import { LogAnalytics } from '../store/log-analytics.js';
const DAY = 86_400_000;
for (const rows of [1_000_000, 10_000_000]) {
  const { db, ids } = await seededSchema('postgres://postgres@127.0.0.1:5432/gwbench', rows, false);
  const end = ids.end - 437_123;
  const week = { organisation_id: ids.organisationId, start: end - 7 * DAY, end };
  const a = new LogAnalytics(db);
  const times = new Map<string, number>();
  const log: string[] = [];
  db.on('query', (q: { __knexQueryUid: string }) => times.set(q.__knexQueryUid, performance.now()));
  db.on('query-response', (resp: unknown, q: { __knexQueryUid: string; sql: string }) => {
    const n = Array.isArray(resp) ? resp.length : (resp as { rows?: unknown[] })?.rows?.length;
    log.push(`${(performance.now() - times.get(q.__knexQueryUid)!).toFixed(1)} ms, ${n} rows: ${q.sql.replace(/\s+/g, ' ').slice(0, 150)}`);
  });
  for (let i = 0; i < 4; i++) { log.length = 0; const t = performance.now(); await a.groups(week, 'model'); if (i === 3) console.log(rows, 'total', (performance.now() - t).toFixed(1)); }
  console.log(log.join('\n'));
  await db.destroy();
}
