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

/** Bins of many rollup rows and raw latencies merged, read back as percentiles. */
export class LatencySketch {
  private readonly sketch = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });
  private zeros = 0;

  get count(): number {
    return this.zeros + this.sketch.store.count;
  }

  /** `count` values in bin `key` (a key of the stored bins). */
  addBin(key: string, count: number): void {
    if (count <= 0) return;
    if (key === ZERO) this.zeros += count;
    else this.sketch.store.add(Number(key), count);
  }

  addLatency(latencyMs: number, count = 1): void {
    if (count <= 0) return;
    if (latencyMs > 0) this.sketch.store.add(mapping.key(latencyMs), count);
    else this.zeros += count;
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

  private valueAtRank(rank: number): number {
    if (rank < this.zeros) return 0;
    return mapping.value(this.sketch.store.keyAtRank(rank - this.zeros));
  }
}
