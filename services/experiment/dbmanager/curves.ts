// A metric's curve kept small enough to draw. Per series (one metric of one trial) the store keeps a
// summary; past BUCKETED_AFTER numeric points also, per bucket of 8^level ms (levels from the series'
// floor to TOP_LEVEL), the bucket's first, last, lowest and highest point. A chart column is made of
// whole buckets, so the four points of each column (M4) are exact, read from a few thousand rows.
import { parseFinite } from '../common/katib-numbers.ts';
import type { MetricLogRow } from '../common/ports.ts';

/** Series with more numeric points than this keep buckets; smaller ones are read point by point. */
export const BUCKETED_AFTER = 10_000;
/** Buckets of level l are 8^l ms wide; the coarsest, 8^11 ms, is about 99 days. */
export const TOP_LEVEL = 11;
export const levelWidth = (level: number): number => 8 ** level;

/** A log's value when it is a finite decimal, as Katib's Python reads it (float()); else undefined. */
export function metricNumber(text: string): number | undefined {
  const n = Number(text);
  // The common case without a regular expression; anything unusual goes to Python's rules.
  if (Number.isFinite(n) && plainDecimal(text)) return n;
  return parseFinite(text);
}

function plainDecimal(text: string): boolean {
  let digit = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digit = true;
    // + - . e E and spaces: what a plain decimal may hold besides digits (no 0x, no Infinity).
    else if (c !== 43 && c !== 45 && c !== 46 && c !== 101 && c !== 69 && c !== 32) return false;
  }
  return digit;
}

/** A normalized time (`YYYY-MM-DDTHH:MM:SS.ffffffZ`) as epoch milliseconds, microseconds as the fraction. */
export function timeMs(time: string): number {
  // Date.parse keeps whole milliseconds (rounding down); the last three digits are added back.
  return Date.parse(time) + Number(time.slice(23, 26)) / 1000;
}

/** What the store keeps of a series: its numeric points, their range and time span. */
export interface SeriesSummary {
  readonly points: number;
  readonly minValue: number;
  readonly maxValue: number;
  /** Normalized times of the earliest and the latest point. */
  readonly firstTime: string;
  readonly lastTime: string;
  /** The value of the latest point (of the later report when two share the time). */
  readonly lastValue: number;
  /** The finest bucket level kept; null while the series is read point by point. */
  readonly floorLevel: number | null;
}

/** One series' points of a batch, in the order they were applied, with their summary. */
export interface PendingSeries {
  readonly trialName: string;
  readonly metricName: string;
  readonly summary: SeriesSummary;
  readonly times: string[];
  readonly values: number[];
}

interface Accumulator {
  readonly trialName: string;
  readonly metricName: string;
  points: number;
  minValue: number;
  maxValue: number;
  firstTime: string;
  lastTime: string;
  lastValue: number;
  readonly times: string[];
  readonly values: number[];
}

/** The numeric points of a batch's reports per series; a delete forgets what came before it. */
export function createCurveBatch() {
  const series = new Map<string, Map<string, Accumulator>>();
  return {
    add(trialName: string, logs: readonly MetricLogRow[]): void {
      let ofTrial = series.get(trialName);
      for (const log of logs) {
        const value = metricNumber(log.value);
        if (value === undefined) continue;
        if (!ofTrial) {
          ofTrial = new Map();
          series.set(trialName, ofTrial);
        }
        let a = ofTrial.get(log.metricName);
        if (!a) {
          a = {
            trialName,
            metricName: log.metricName,
            points: 0,
            minValue: value,
            maxValue: value,
            firstTime: log.time,
            lastTime: log.time,
            lastValue: value,
            times: [],
            values: [],
          };
          ofTrial.set(log.metricName, a);
        }
        // Counted in place: a batch may hold millions of points.
        a.points++;
        if (value < a.minValue) a.minValue = value;
        if (value > a.maxValue) a.maxValue = value;
        if (log.time < a.firstTime) a.firstTime = log.time;
        if (log.time >= a.lastTime) {
          a.lastTime = log.time;
          a.lastValue = value;
        }
        a.times.push(log.time);
        a.values.push(value);
      }
    },
    forget(trialName: string): void {
      series.delete(trialName);
    },
    pending(): PendingSeries[] {
      return [...series.values()].flatMap((ofTrial) =>
        [...ofTrial.values()].map((a) => ({
          trialName: a.trialName,
          metricName: a.metricName,
          summary: {
            points: a.points,
            minValue: a.minValue,
            maxValue: a.maxValue,
            firstTime: a.firstTime,
            lastTime: a.lastTime,
            lastValue: a.lastValue,
            floorLevel: null,
          },
          times: a.times,
          values: a.values,
        })),
      );
    },
  };
}

/**
 * What a batch's points do to a series' buckets, given the series' summary with them added:
 * nothing while it is small; once it passes the limit its buckets are built from all its points
 * (from the batch alone when it brought them all); after that the batch's points are added.
 */
export type BucketWork =
  | { readonly kind: 'none' }
  | { readonly kind: 'add'; readonly floorLevel: number }
  | { readonly kind: 'build'; readonly floorLevel: number; readonly fromStore: boolean };

export function bucketWork(
  series: SeriesSummary,
  batch: SeriesSummary,
  /** Builds from the store this batch may still do; past them a build waits for the series' next batch. */
  storeBuildsLeft = Number.POSITIVE_INFINITY,
): BucketWork {
  if (series.floorLevel !== null) return { kind: 'add', floorLevel: series.floorLevel };
  if (series.points <= BUCKETED_AFTER) return { kind: 'none' };
  const fromStore = series.points !== batch.points;
  if (fromStore && storeBuildsLeft <= 0) return { kind: 'none' };
  return { kind: 'build', floorLevel: floorLevelOf(series), fromStore };
}

/**
 * Builds from the store (each reads the series' 10,000 points back: ~25 ms on SQLite, more on
 * PostgreSQL) one transaction does at most: trials reported in step pass the limit together (the
 * bench's 50 trials × 2 metrics stalled persistence for 3 s in one transaction; with 4 a
 * transaction, PostgreSQL's reads still waited up to 1.09 s). A series left unbuilt is read point
 * by point meanwhile.
 */
export const STORE_BUILDS_PER_BATCH = 2;

/** The finest level a series keeps once bucketed: buckets of about four points or more on average. */
export function floorLevelOf(summary: SeriesSummary): number {
  const span = timeMs(summary.lastTime) - timeMs(summary.firstTime);
  const wanted = (4 * span) / Math.max(1, summary.points);
  let level = 0;
  while (level < TOP_LEVEL && levelWidth(level) < wanted) level++;
  return level;
}

/** One bucket: its points' count, first, last, lowest and highest ([ms, value]). */
export interface Bucket {
  readonly level: number;
  readonly bucket: number;
  count: number;
  firstMs: number;
  firstValue: number;
  lastMs: number;
  lastValue: number;
  minMs: number;
  minValue: number;
  maxMs: number;
  maxValue: number;
}

/** The buckets of levels `floorLevel`..TOP_LEVEL that points (in applied order) fall in. */
export function bucketsOf(times: readonly string[], values: readonly number[], floorLevel: number): Bucket[] {
  const levels: Map<number, Bucket>[] = [];
  for (let level = floorLevel; level <= TOP_LEVEL; level++) levels.push(new Map());
  for (let i = 0; i < times.length; i++) {
    const t = timeMs(times[i]!);
    const v = values[i]!;
    for (let k = 0; k < levels.length; k++) {
      const level = floorLevel + k;
      const bucket = Math.floor(t / levelWidth(level));
      const seen = levels[k]!.get(bucket);
      if (seen) addPoint(seen, t, v);
      else levels[k]!.set(bucket, newBucket(level, bucket, t, v));
    }
  }
  return levels.flatMap((m) => [...m.values()]);
}

const newBucket = (level: number, bucket: number, t: number, v: number): Bucket => ({
  level,
  bucket,
  count: 1,
  firstMs: t,
  firstValue: v,
  lastMs: t,
  lastValue: v,
  minMs: t,
  minValue: v,
  maxMs: t,
  maxValue: v,
});

function addPoint(b: Bucket, t: number, v: number): void {
  b.count++;
  if (t < b.firstMs) [b.firstMs, b.firstValue] = [t, v];
  if (t >= b.lastMs) [b.lastMs, b.lastValue] = [t, v];
  if (v < b.minValue) [b.minMs, b.minValue] = [t, v];
  if (v > b.maxValue) [b.maxMs, b.maxValue] = [t, v];
}
