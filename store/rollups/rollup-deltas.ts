import { GRAIN_MS, METADATA_DIMENSIONS, ROLLUP_DIMENSIONS, ROLLUP_SETS, type Grain, type MetadataDimension, type RollupDimension, type RollupSet } from './dimensions.js';
import { binOf } from './latency-sketch.js';
import { metadataValueOf, NO_METADATA_KEYS, type MetadataRollupKeys } from './metadata-keys.js';

/** Dimensions held in integer columns. */
const NUMERIC_DIMENSIONS: ReadonlySet<RollupDimension> = new Set(['status', 'prompt_version']);

/** What one log row adds to the rollups: its dimensions and measures (request_logs columns). */
export interface RollupFact extends Record<RollupDimension, string | number | null> {
  organisation_id: string;
  workspace_id: string;
  created_at: number;
  latency_ms: number;
  cost: number;
  cache_hit: boolean;
  is_error: boolean;
  rescued: boolean;
  cost_unpriced: boolean;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Parsed; only when metadata keys are rolled up (metadata-keys.ts), else null. */
  metadata: Record<string, unknown> | null;
}

/** The request_logs columns a RollupFact is read from. */
export const FACT_COLUMNS = [
  'organisation_id', 'workspace_id', 'created_at', ...ROLLUP_DIMENSIONS, 'metadata',
  'latency_ms', 'cost', 'cost_unpriced', 'cache_hit', 'is_error', 'rescued', 'prompt_tokens', 'completion_tokens', 'total_tokens',
] as const;

/** Summed per rollup row; `latency` (the sketch's bins) is merged beside them. */
export const MEASURES = ['requests', 'errors', 'cost', 'cache_savings', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'latency_sum', 'cache_hits', 'rescued', 'unpriced'] as const;
export type Measure = (typeof MEASURES)[number];

/**
 * The workspace_id of the rollup rows that add up every workspace of the organisation: an answer
 * without a workspace filter reads these instead of one row per workspace (a third to a tenth
 * of the rows, and of the latency bins the database merges, for organisations with 3 to 10
 * workspaces). Workspace ids are UUIDs, so it names no real workspace.
 */
export const ALL_WORKSPACES = '*';

/** The columns that say which rollup row a delta belongs to (its unique key). */
export const ROLLUP_KEY = ['organisation_id', 'dimension_set', 'grain', 'bucket_start', 'workspace_id', 'dims_key'] as const;

/** Every analytics_rollups column, in the order the writers bind them. */
export const ROLLUP_COLUMNS = [...ROLLUP_KEY, ...ROLLUP_DIMENSIONS, ...METADATA_DIMENSIONS, ...MEASURES, 'latency'] as const;

export interface RollupDelta extends Record<Measure, number>, Partial<Record<RollupDimension | MetadataDimension, string | number | null>> {
  organisation_id: string;
  workspace_id: string;
  dimension_set: string;
  grain: Grain;
  bucket_start: number;
  dims_key: string;
  latency: Map<string, number>;
}

/**
 * A row read from request_logs (either engine: 0/1 booleans, bigint strings, metadata as JSON text
 * on SQLite) as a RollupFact. Metadata is parsed only when `withMetadata` (some key is rolled up).
 */
export function toFact(row: Record<string, unknown>, withMetadata = false): RollupFact {
  const fact = {
    organisation_id: String(row.organisation_id),
    workspace_id: String(row.workspace_id),
    created_at: Number(row.created_at),
    latency_ms: Number(row.latency_ms),
    cost: Number(row.cost),
    cache_hit: Boolean(row.cache_hit),
    is_error: Boolean(row.is_error),
    rescued: Boolean(row.rescued),
    cost_unpriced: Boolean(row.cost_unpriced),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    total_tokens: Number(row.total_tokens),
    metadata: withMetadata ? parsedMetadata(row.metadata) : null,
  } as RollupFact;
  for (const dimension of ROLLUP_DIMENSIONS) {
    const value = row[dimension];
    fact[dimension] = value === undefined || value === null ? null : NUMERIC_DIMENSIONS.has(dimension) ? Number(value) : String(value);
  }
  return fact;
}

function parsedMetadata(value: unknown): Record<string, unknown> | null {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/** The dimension values a fact counts under in `set`: one tuple, or one per rolled-up metadata key. */
function valuesIn(set: RollupSet, fact: RollupFact, metadataKeys: MetadataRollupKeys): Array<Array<string | number | null>> {
  if (set.dimensions[0] !== 'metadata_key') return [set.dimensions.map((d) => fact[d as RollupDimension])];
  const out: Array<Array<string | number | null>> = [];
  for (const [key, countedFrom] of metadataKeys) if (fact.created_at >= countedFrom) out.push([key, metadataValueOf(fact.metadata, key)]);
  return out;
}

function emptyDelta(from: Omit<RollupDelta, Measure | 'latency'>): RollupDelta {
  const delta = { ...from, latency: new Map<string, number>() } as RollupDelta;
  for (const measure of MEASURES) delta[measure] = 0;
  return delta;
}

/** Adds `source` (a delta of the same rollup row) into `target`. */
export function addInto(target: RollupDelta, source: RollupDelta): void {
  for (const measure of MEASURES) target[measure] += source[measure];
  for (const [bin, count] of source.latency) target.latency.set(bin, (target.latency.get(bin) ?? 0) + count);
}

/** A delta's rollup row, as one string. */
export function keyOf(delta: Pick<RollupDelta, 'organisation_id' | 'dimension_set' | 'grain' | 'bucket_start' | 'workspace_id' | 'dims_key'>): string {
  return rollupKey(delta.organisation_id, delta.dimension_set, delta.grain, delta.bucket_start, delta.workspace_id, delta.dims_key);
}

/** keyOf from its parts, with no object to build first (the writers' inner loop). */
function rollupKey(organisationId: string, set: string, grain: Grain, bucketStart: number, workspaceId: string, dimsKey: string): string {
  return `${organisationId}\u0000${set}\u0000${grain}\u0000${bucketStart}\u0000${workspaceId}\u0000${dimsKey}`;
}

/**
 * The facts of a batch that count in exactly the same rollup rows, summed into one delta each:
 * same organisation, workspace and minute, same value of every dimension and of every listed
 * metadata key (with whether it counts yet). The sets are then expanded once per group, not once
 * per row: a batch of one busy route is a handful of groups, where each row fanned out into some
 * 26 keyed lookups (13 sets, in its workspace and in all workspaces).
 */
function groupFacts(facts: readonly RollupFact[], sign: 1 | -1, metadataKeys: MetadataRollupKeys): Array<{ fact: RollupFact; delta: RollupDelta }> {
  const groups = new Map<string, { fact: RollupFact; delta: RollupDelta }>();
  const minute = GRAIN_MS.minute;
  for (const fact of facts) {
    const identity: Array<string | number | boolean | null> = [fact.organisation_id, fact.workspace_id, fact.created_at - (fact.created_at % minute)];
    for (const dimension of ROLLUP_DIMENSIONS) identity.push(fact[dimension]);
    for (const [key, countedFrom] of metadataKeys) identity.push(fact.created_at >= countedFrom, metadataValueOf(fact.metadata, key));
    const groupKey = JSON.stringify(identity);
    let group = groups.get(groupKey);
    // The group's delta carries measures only (addInto reads nothing else); its key fields are placeholders.
    if (!group) groups.set(groupKey, (group = { fact, delta: emptyDelta({ organisation_id: fact.organisation_id, workspace_id: fact.workspace_id, dimension_set: '', grain: 'minute', bucket_start: 0, dims_key: '' }) }));
    const delta = group.delta;
    delta.requests += sign;
    if (fact.is_error) delta.errors += sign;
    if (fact.cache_hit) {
      delta.cache_hits += sign;
      delta.cache_savings += sign * fact.cost;
    } else delta.cost += sign * fact.cost;
    delta.prompt_tokens += sign * fact.prompt_tokens;
    delta.completion_tokens += sign * fact.completion_tokens;
    delta.total_tokens += sign * fact.total_tokens;
    delta.latency_sum += sign * fact.latency_ms;
    if (fact.rescued) delta.rescued += sign;
    if (fact.cost_unpriced) delta.unpriced += sign;
    const bin = binOf(fact.latency_ms);
    delta.latency.set(bin, (delta.latency.get(bin) ?? 0) + sign);
  }
  return [...groups.values()];
}

/**
 * The rollup rows a batch of log rows adds to (sign 1) or, when they are deleted, takes from
 * (sign -1). Each row is counted once per set in the set's finest bucket, in its workspace's row
 * and in the all-workspaces row (rows alike are summed first: groupFacts); those deltas are then
 * folded into the coarser buckets. Sorted by key, so concurrent writers lock rows in one order.
 */
export function rollupDeltas(facts: readonly RollupFact[], sign: 1 | -1, metadataKeys: MetadataRollupKeys = NO_METADATA_KEYS, sets: readonly RollupSet[] = ROLLUP_SETS): RollupDelta[] {
  const byKey = new Map<string, RollupDelta>();
  const finest: RollupDelta[] = [];
  // A group's facts share every value read below; its first fact stands for all of them.
  for (const { fact, delta: group } of groupFacts(facts, sign, metadataKeys)) {
    for (const set of sets) {
      const grain = set.grains[set.grains.length - 1]!;
      const bucketStart = fact.created_at - (fact.created_at % GRAIN_MS[grain]);
      for (const values of valuesIn(set, fact, metadataKeys)) {
        const dimsKey = JSON.stringify(values);
        for (const workspaceId of [fact.workspace_id, ALL_WORKSPACES]) {
          const key = rollupKey(fact.organisation_id, set.name, grain, bucketStart, workspaceId, dimsKey);
          let delta = byKey.get(key);
          if (!delta) {
            delta = emptyDelta({
              organisation_id: fact.organisation_id,
              workspace_id: workspaceId,
              dimension_set: set.name,
              grain,
              bucket_start: bucketStart,
              dims_key: dimsKey,
            });
            set.dimensions.forEach((d, i) => (delta![d] = values[i]));
            byKey.set(key, delta);
            finest.push(delta);
          }
          addInto(delta, group);
        }
      }
    }
  }
  const grainsOf = new Map(ROLLUP_SETS.map((set) => [set.name, set.grains]));
  for (const delta of finest) {
    for (const grain of grainsOf.get(delta.dimension_set)!) {
      if (grain === delta.grain) continue;
      const bucketStart = delta.bucket_start - (delta.bucket_start % GRAIN_MS[grain]);
      const key = rollupKey(delta.organisation_id, delta.dimension_set, grain, bucketStart, delta.workspace_id, delta.dims_key);
      let folded = byKey.get(key);
      if (!folded) {
        // The finest delta's key and dimensions, in the coarser bucket; measures from zero.
        const { latency: _latency, ...rest } = delta;
        byKey.set(key, (folded = emptyDelta({ ...rest, grain, bucket_start: bucketStart })));
      }
      addInto(folded, delta);
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, delta]) => delta);
}

/** rollupDeltas of request_logs rows as read (toFact), their metadata parsed only when a key is listed. */
export function rowDeltas(rows: ReadonlyArray<Record<string, unknown>>, sign: 1 | -1, metadataKeys: MetadataRollupKeys): RollupDelta[] {
  const withMetadata = metadataKeys.size > 0;
  return rollupDeltas(rows.map((row) => toFact(row, withMetadata)), sign, metadataKeys);
}

/** A delta as the values of ROLLUP_COLUMNS, ready to bind. */
export function rollupValues(delta: RollupDelta): unknown[] {
  return ROLLUP_COLUMNS.map((column) => {
    if (column === 'latency') return JSON.stringify(Object.fromEntries(delta.latency));
    return delta[column as keyof RollupDelta] ?? null;
  });
}
