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

/** The bin a latency (ms, >= 0) falls in. */
export function binOf(latencyMs: number): string {
  return latencyMs > 0 ? String(mapping.key(latencyMs)) : ZERO;
}

/**
 * Bins of many rollup rows and raw latencies merged, read back as percentiles. Counts are kept
 * signed until read: an answer may add a whole bucket and take away the rows outside its range.
 */
export class LatencySketch {
  private readonly bins = new Map<string, number>();
  private sketch: { zeros: number; store: DDSketch['store'] } | undefined;

  /** `count` values (negative: taken away) in bin `key` (a key of the stored bins). */
  addBin(key: string, count: number): void {
    if (!count) return;
    this.bins.set(key, (this.bins.get(key) ?? 0) + count);
    this.sketch = undefined;
  }

  addLatency(latencyMs: number, count = 1): void {
    this.addBin(binOf(latencyMs), count);
  }

  get count(): number {
    return this.built().zeros + this.built().store.count;
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

  private built(): { zeros: number; store: DDSketch['store'] } {
    if (this.sketch) return this.sketch;
    const sketch = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });
    let zeros = 0;
    for (const [key, count] of this.bins) {
      if (count <= 0) continue;
      if (key === ZERO) zeros += count;
      else sketch.store.add(Number(key), count);
    }
    return (this.sketch = { zeros, store: sketch.store });
  }

  private valueAtRank(rank: number): number {
    const { zeros, store } = this.built();
    if (rank < zeros) return 0;
    return mapping.value(store.keyAtRank(rank - zeros));
  }
}
