import type { Knex } from 'knex';

/**
 * Arbitrary metadata keys (not the special `_user` and the others, which have columns) can be
 * rolled up too: the `metadata` rollup set keeps one row per listed key and value, so a filter
 * `env=prod` or a group by `metadata.env` reads rollup rows instead of every matching log row.
 *
 * Bounded twice, so a key holding request ids cannot blow the table up: only the keys an operator
 * lists (GW_ROLLUP_METADATA_KEYS, kept in `rollup_metadata_keys` so every instance and the SQLite
 * writer thread read the same list), and only string values up to METADATA_VALUE_MAX_LENGTH
 * characters. A row without the key counts under NULL (the group of rows that lack it); any other
 * value (longer, a number, an object) under OTHER_VALUE, which no short filter value equals, and
 * a group-by that meets it reads the raw rows instead.
 *
 * A key is counted for rows created from its `counted_from` on (a minute after it was listed,
 * so writers still holding the old list have moved on): answers use its rollups only for ranges
 * whose rollup buckets all start at or after it, and read the raw rows otherwise.
 */
export const METADATA_VALUE_MAX_LENGTH = 64;

/** Stands for every value the set does not keep one by one: longer than any kept value, so no filter value served here equals it. */
export const OTHER_VALUE = `~other${'~'.repeat(METADATA_VALUE_MAX_LENGTH)}`;

/** Listed key -> counted_from (epoch ms). */
export type MetadataRollupKeys = ReadonlyMap<string, number>;

export const NO_METADATA_KEYS: MetadataRollupKeys = new Map();

/** The value a log row's metadata counts under for `key` (metadata as stored: an object, or its JSON text). */
export function metadataValueOf(metadata: Record<string, unknown> | null, key: string): string | null {
  const value = metadata ? metadata[key] : undefined;
  if (value === undefined || value === null) return null;
  return typeof value === 'string' && value.length <= METADATA_VALUE_MAX_LENGTH ? value : OTHER_VALUE;
}

/** Whether the rollups can answer a filter `key = value`. */
export function isRolledUpValue(value: string): boolean {
  return value.length <= METADATA_VALUE_MAX_LENGTH;
}

export async function readMetadataRollupKeys(db: Knex | Knex.Transaction): Promise<MetadataRollupKeys> {
  return metadataKeysFromRows((await db('rollup_metadata_keys').select('key', 'counted_from')) as Array<{ key: string; counted_from: unknown }>);
}

const CACHE_MS = 10_000;
const cached = new WeakMap<object, { at: number; keys: Promise<MetadataRollupKeys> }>();

/**
 * The list as the log writers use it: read again at most every 10 s (a key starts counting a
 * minute after it is listed, so a writer is never behind). Keyed by the knex instance.
 */
export function writerMetadataRollupKeys(db: Knex | Knex.Transaction, now = Date.now()): Promise<MetadataRollupKeys> {
  // One entry per connection pool: a transaction shares its knex's client.
  const client = (db as Knex).client as object;
  const hit = cached.get(client);
  if (hit && now - hit.at < CACHE_MS) return hit.keys;
  const keys = readMetadataRollupKeys(db).catch((error: unknown) => {
    cached.delete(client);
    throw error;
  });
  cached.set(client, { at: now, keys });
  return keys;
}

/** The list as the SQLite writer reads it in its batch's transaction (a prepared statement: microseconds). */
export function metadataKeysFromRows(rows: ReadonlyArray<{ key: string; counted_from: unknown }>): MetadataRollupKeys {
  return rows.length ? new Map(rows.map((row) => [row.key, Number(row.counted_from)])) : NO_METADATA_KEYS;
}

export const METADATA_KEYS_SQL = 'select key, counted_from from rollup_metadata_keys';

/** How long after being listed a key starts counting: longer than any writer keeps the list. */
export const COUNTING_DELAY_MS = 60_000;

/**
 * Makes `keys` the rolled-up list: a new key counts from a minute from now (the next whole
 * minute; a seed or a test that counts every row passes 0); a key no longer listed is removed
 * with its rollup rows. Keys already listed keep their counted_from.
 */
export async function setMetadataRollupKeys(db: Knex, keys: readonly string[], countedFrom = Math.ceil((Date.now() + COUNTING_DELAY_MS) / 60_000) * 60_000): Promise<void> {
  await db.transaction(async (trx) => {
    const current = await readMetadataRollupKeys(trx);
    const gone = [...current.keys()].filter((key) => !keys.includes(key));
    if (gone.length) {
      await trx('rollup_metadata_keys').whereIn('key', gone).del();
      await trx('analytics_rollups').where('dimension_set', 'metadata').whereIn('metadata_key', gone).del();
    }
    const added = [...new Set(keys)].filter((key) => !current.has(key));
    if (added.length) await trx('rollup_metadata_keys').insert(added.map((key) => ({ key, counted_from: countedFrom })));
  });
  // This process's writers read the new list at once (others within CACHE_MS, before the key counts).
  cached.delete((db as Knex).client as object);
}
