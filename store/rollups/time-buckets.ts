import { GRAIN_MS, type Grain, type SeriesGrain } from './dimensions.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Whether `timeZone` is an IANA zone name this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at instant `t`, in ms (+05:30 is 19,800,000). */
export function utcOffset(timeZone: string, t: number): number {
  let formatter = formatters.get(timeZone);
  if (!formatter) formatters.set(timeZone, (formatter = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })));
  const name = formatter.formatToParts(t).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) return 0;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * HOUR + Number(match[3]) * MINUTE);
}

/** Start of the local day or hour holding t (a DST change moves it; the second pass settles it). */
function floorLocal(t: number, size: number, timeZone: string): number {
  let start = t - ((((t + utcOffset(timeZone, t)) % size) + size) % size);
  const again = t - ((((t + utcOffset(timeZone, start)) % size) + size) % size);
  if (again !== start && again <= t) start = again;
  return start;
}

/**
 * The starts of the buckets of size `grain` in `timeZone` that meet [start, end), followed by
 * `end`: local midnights for days (23 or 25 hours apart across a DST change), local hour starts
 * for hours (at :30 past the UTC hour in India), minutes everywhere.
 */
export function bucketBoundaries(start: number, end: number, grain: SeriesGrain, timeZone: string): number[] {
  const out: number[] = [];
  if (grain === 'minute') {
    for (let t = start - (start % MINUTE); t < end; t += MINUTE) out.push(t);
  } else if (grain === 'hour') {
    for (let t = floorLocal(start, HOUR, timeZone); t < end; t += HOUR) out.push(t);
  } else {
    // A day later plus an hour is always inside the next local day, whatever DST did.
    for (let t = floorLocal(start, DAY, timeZone); t < end; t = floorLocal(t + DAY + HOUR, DAY, timeZone)) out.push(t);
  }
  out.push(end);
  return out;
}

/** Index of the bucket holding t (boundaries as bucketBoundaries gives them; t < the last). */
export function bucketIndex(boundaries: readonly number[], t: number): number {
  let low = 0;
  let high = boundaries.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (boundaries[mid]! <= t) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * The coarsest whole-minute unit that every bucket boundary inside the range is a multiple of:
 * raw rows grouped by it fall in one bucket each (a day in UTC, 30 minutes in India, ...).
 */
export function rawTimeUnit(boundaries: readonly number[]): number {
  const inner = boundaries.slice(1, -1);
  for (const unit of [DAY, HOUR, 30 * MINUTE, 15 * MINUTE, MINUTE]) if (inner.every((b) => b % unit === 0)) return unit;
  return MINUTE;
}

/** +1 adds a piece's rows, -1 takes them away (a whole bucket minus the part outside the range). */
export type Sign = 1 | -1;

/** `point`: the start of the time series point a piece counts towards (0 without a series). */
export interface Cover {
  rollup: Array<{ grain: Grain; from: number; to: number; sign: Sign; point: number }>;
  raw: Array<{ from: number; to: number; sign: Sign; point: number }>;
}

/**
 * Splits [from, to) into aligned rollup buckets, coarsest first, and the raw pieces no bucket of
 * `grains` fits. A partial bucket at an edge is read as that whole bucket minus the part outside
 * [from, to) when that part is the smaller one (its rows are subtracted: sums and sketch bins
 * are counts); each piece names the series `point` it counts towards, so a bucket may reach
 * into the next point (and be read once for each). So 23 hours and 52 minutes cost one day minus 7 minutes, and no
 * edge reads more than half a bucket of finer pieces or raw rows.
 */
export function coverRange(from: number, to: number, grains: readonly Grain[], out: Cover, sign: Sign = 1, point = 0): void {
  if (from >= to) return;
  const [grain, ...finer] = grains;
  if (!grain) {
    out.raw.push({ from, to, sign, point });
    return;
  }
  const size = GRAIN_MS[grain];
  const alignedFrom = Math.ceil(from / size) * size;
  const alignedTo = Math.floor(to / size) * size;
  if (alignedFrom >= alignedTo) {
    // No whole bucket: at most two partial ones, either side of a boundary.
    const boundary = Math.floor(to / size) * size;
    if (boundary > from && boundary < to) {
      partialBucket(from, boundary, grain, finer, out, sign, point);
      partialBucket(boundary, to, grain, finer, out, sign, point);
    } else partialBucket(from, to, grain, finer, out, sign, point);
    return;
  }
  partialBucket(from, alignedFrom, grain, finer, out, sign, point);
  out.rollup.push({ grain, from: alignedFrom, to: alignedTo, sign, point });
  partialBucket(alignedTo, to, grain, finer, out, sign, point);
}

/** [from, to), inside one bucket of `grain`: from finer pieces, or as the bucket minus the rest. */
function partialBucket(from: number, to: number, grain: Grain, finer: readonly Grain[], out: Cover, sign: Sign, point: number): void {
  if (from >= to) return;
  const size = GRAIN_MS[grain];
  const start = Math.floor(from / size) * size;
  const end = start + size;
  if (end - start - (to - from) < to - from) {
    out.rollup.push({ grain, from: start, to: end, sign, point });
    const minus = -sign as Sign;
    coverRange(start, from, finer, out, minus, point);
    coverRange(to, end, finer, out, minus, point);
    return;
  }
  coverRange(from, to, finer, out, sign, point);
}
