import { DDSketch } from '@datadog/sketches-js';

/**
 * Latency percentiles from a DDSketch (@datadog/sketches-js): a mergeable histogram whose
 * logarithmic bins guarantee each reported value within RELATIVE_ACCURACY of the true value
 * at the same rank. Rollup rows keep a sketch's bins as a JSON object {bin index: count},
 * "z" counting zero latencies, so the database can add two of them in an upsert and subtract
 * one when logs are deleted (store/rollups/rollup-write.ts).
 */
export const RELATIVE_ACCURACY = 0.01;

const ZERO = 'z';
const mapping = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY }).mapping;

// The mapping's key is ceil(log2(value) * multiplier) + offset; binSql writes the same in SQL.
const { _multiplier: multiplier, _offset: offset } = mapping as unknown as { _multiplier: number; _offset: number };
if (offset !== 0 || Math.ceil(Math.log2(1000) * multiplier) !== mapping.key(1000)) throw new Error('unexpected DDSketch mapping');

const perNaturalLog = (multiplier / Math.LN2).toPrecision(17);

/**
 * The bin of a latency column in SQL (either engine), NULL for zero: raw rows are grouped by bin in
 * the database, so a range's edges return at most a few hundred rows per group whatever the traffic.
 * ceil(ln(x) * multiplier / ln 2) equals mapping.key for every whole millisecond up to 2,000,000
 * in JavaScript, Postgres and SQLite (checked).
 */
export function binSql(column: string): string {
  return `(case when ${column} > 0 then cast(ceil(ln(cast(${column} as double precision)) * cast(${perNaturalLog} as double precision)) as integer) end)`;
}

/** The bin a latency (ms, >= 0) falls in, as rollup rows store it. */
export function binOf(latencyMs: number): string {
  return latencyMs > 0 ? String(mapping.key(latencyMs)) : ZERO;
}

/**
 * Bins of many rollup rows and raw latencies merged, read back as percentiles. Counts are kept
 * signed until read (an answer may add a whole bucket and take away the rows outside its range),
 * in a dense array by bin: adding a stored sketch costs one array addition per bin, no string
 * keys kept, whatever the number of rollup rows merged.
 */
export class LatencySketch {
  private zeros = 0;
  private counts = new Float64Array(0);
  /** The bin of counts[0]. */
  private base = 0;

  /** `count` values (negative: taken away) in bin `bin` (mapping.key), or zeros when null. */
  addBin(bin: number | null, count: number): void {
    if (!count) return;
    if (bin === null) {
      this.zeros += count;
      return;
    }
    if (bin < this.base || bin >= this.base + this.counts.length) this.grow(bin);
    this.counts[bin - this.base]! += count;
  }

  /** A rollup row's stored bins ({bin: count}, "z" for zeros; JSON text on SQLite), times `sign`. */
  addStoredBins(stored: unknown, sign: number): void {
    const bins = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Record<string, number | string> | null;
    for (const key in bins) this.addBin(key === ZERO ? null : Number(key), sign * Number(bins[key]));
  }

  addLatency(latencyMs: number, count = 1): void {
    this.addBin(latencyMs > 0 ? mapping.key(latencyMs) : null, count);
  }

  get count(): number {
    let total = Math.max(this.zeros, 0);
    for (const n of this.counts) if (n > 0) total += n;
    return total;
  }

  /**
   * Linear interpolation between the closest ranks, as Postgres percentile_cont: each of the two
   * values is within RELATIVE_ACCURACY of the exact one, so their interpolation is too.
   */
  percentile(p: number): number | null {
    const total = this.count;
    if (!total) return null;
    const position = p * (total - 1);
    const low = this.valueAtRank(Math.floor(position));
    const high = this.valueAtRank(Math.ceil(position));
    return low + (high - low) * (position - Math.floor(position));
  }

  /** Room for `bin`, with slack either side so a sketch grows a few times at most. */
  private grow(bin: number): void {
    const low = this.counts.length ? Math.min(this.base, bin) : bin;
    const high = this.counts.length ? Math.max(this.base + this.counts.length, bin + 1) : bin + 1;
    const base = low - 32;
    const counts = new Float64Array(high - low + 64);
    if (this.counts.length) counts.set(this.counts, this.base - base);
    this.counts = counts;
    this.base = base;
  }

  /** The value of the bin holding `rank` (0-based, zeros first), as DDSketch's store answers it. */
  private valueAtRank(rank: number): number {
    const zeros = Math.max(this.zeros, 0);
    if (rank < zeros) return 0;
    let running = zeros;
    let last = 0;
    for (let i = 0; i < this.counts.length; i++) {
      const n = this.counts[i]!;
      if (n <= 0) continue;
      last = i;
      running += n;
      if (running > rank) return mapping.value(this.base + i);
    }
    return mapping.value(this.base + last);
  }
}
