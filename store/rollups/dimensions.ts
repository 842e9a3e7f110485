/**
 * What the analytics rollups are kept by. A dimension is a request_logs column that
 * analytics filter or group by; analytics_rollups has a column of the same name. A rollup set
 * is one combination of dimensions kept per workspace and time bucket: a query is answered from
 * the smallest set holding every dimension its filter and grouping name, and from the raw rows
 * when no set does (an arbitrary metadata key, a trace id, two dimensions no set combines).
 *
 * Adding a dimension (a prompt version, say): a column on request_logs and on analytics_rollups
 * (one migration, which also calls rebuildRollups so history is counted again), its name here
 * and in the sets that should hold it, and its filter/group in store/log-filter.ts and
 * store/log-analytics.ts.
 */
export const ROLLUP_DIMENSIONS = [
  'api_key_id',
  'provider',
  'model',
  'status',
  'cache_status',
  'endpoint',
  'user_id',
  'environment',
  'end_organisation',
  'prompt_id',
  'prompt_version',
  'prompt_label',
] as const;

export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/**
 * The `metadata` set's columns: a listed arbitrary metadata key and its value (metadata-keys.ts).
 * Not request_logs columns: a log row adds one such row per listed key.
 */
export const METADATA_DIMENSIONS = ['metadata_key', 'metadata_value'] as const;

export type MetadataDimension = (typeof METADATA_DIMENSIONS)[number];

/**
 * Rollup buckets. Weeks (7 days from the epoch, a Thursday: storage only, not a calendar week)
 * keep a month's answer to a handful of rows per group; quarter hours make the local days and
 * hours of zones a half or three quarters of an hour off UTC out of few rows.
 */
export type Grain = 'minute' | 'quarter' | 'hour' | 'day' | 'week';

/** The buckets a time series can ask for. */
export type SeriesGrain = 'minute' | 'hour' | 'day';

export const GRAIN_MS: Record<Grain, number> = { minute: 60_000, quarter: 900_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };

/** Largest first: a range is covered by weeks, then days, hours, quarter hours, minutes, then raw rows. */
export const GRAINS: readonly Grain[] = ['week', 'day', 'hour', 'quarter', 'minute'];

export interface RollupSet {
  name: string;
  dimensions: readonly (RollupDimension | MetadataDimension)[];
  grains: readonly Grain[];
}

const WITH_MINUTES: readonly Grain[] = GRAINS;
const TO_QUARTER_HOURS: readonly Grain[] = ['week', 'day', 'hour', 'quarter'];

/**
 * Every set is also per workspace, and for all workspaces together (rollup-deltas.ts).
 * One set per dimension answers its group-by and its filter; `core` combines the dimensions
 * consoles filter together. What no bucket of a set fits at a range's edges (up to half its finest
 * bucket on each side) is read from the raw rows, and that part grows with the traffic: with hours
 * as the finest bucket it doubled a 7-day group-by between 1 and 10 million rows a month.
 * - Minutes (edges of at most two half minutes) for the totals and for dimensions with few values
 *   (models, statuses, cache statuses, endpoints, environments, and the metadata keys an operator
 *   lists for rollups, such as `env`: tens), whose minute rows are bounded by those values, not by
 *   the traffic.
 * - Quarter hours for dimensions with many values (keys, users, organisations, prompts, `core`):
 *   per minute nearly every combination would be a row of its own, as many rollup rows as log rows.
 */
export const ROLLUP_SETS: readonly RollupSet[] = [
  { name: 'workspace', dimensions: [], grains: WITH_MINUTES },
  { name: 'api_key', dimensions: ['api_key_id'], grains: TO_QUARTER_HOURS },
  { name: 'model', dimensions: ['provider', 'model'], grains: WITH_MINUTES },
  { name: 'status', dimensions: ['status'], grains: WITH_MINUTES },
  { name: 'cache_status', dimensions: ['cache_status'], grains: WITH_MINUTES },
  { name: 'endpoint', dimensions: ['endpoint'], grains: WITH_MINUTES },
  { name: 'user', dimensions: ['user_id'], grains: TO_QUARTER_HOURS },
  { name: 'environment', dimensions: ['environment'], grains: WITH_MINUTES },
  { name: 'organisation', dimensions: ['end_organisation'], grains: TO_QUARTER_HOURS },
  { name: 'prompt', dimensions: ['prompt_id'], grains: TO_QUARTER_HOURS },
  // A prompt's versions and labels side by side (prompt completions; 171_prompt_in_logs).
  { name: 'prompt_version', dimensions: ['prompt_id', 'prompt_version', 'prompt_label'], grains: TO_QUARTER_HOURS },
  { name: 'core', dimensions: ['api_key_id', 'provider', 'model', 'status'], grains: TO_QUARTER_HOURS },
  // Listed arbitrary metadata keys, one row per key and value (metadata-keys.ts).
  { name: 'metadata', dimensions: METADATA_DIMENSIONS, grains: WITH_MINUTES },
];

export const METADATA_SET = ROLLUP_SETS.find((set) => set.name === 'metadata')!;

/** The smallest set holding every dimension named, or undefined when none does. */
export function setFor(dimensions: ReadonlySet<RollupDimension | MetadataDimension>): RollupSet | undefined {
  let best: RollupSet | undefined;
  for (const set of ROLLUP_SETS) {
    if (![...dimensions].every((d) => set.dimensions.includes(d))) continue;
    if (!best || set.dimensions.length < best.dimensions.length) best = set;
  }
  return best;
}
