// Reading a curve for a chart: which rows to read (the series' points or its buckets of one level)
// and the columns' first, lowest, highest and last points (M4) made of them.
import type { CurveQuery, MetricCurve } from '../common/ports.ts';
import { levelWidth, metricNumber, type SeriesSummary, TOP_LEVEL, timeMs } from './curves.ts';

/**
 * How to read a series for `columns` columns between fromMs and toMs: whole buckets of the coarsest
 * level no wider than a column (a column is a whole number of them), or its points when a column is
 * narrower than the series' finest buckets (or it has none).
 */
export type CurvePlan =
  | { readonly kind: 'points'; readonly origin: number; readonly columnMs: number }
  | {
      readonly kind: 'buckets';
      readonly origin: number;
      readonly columnMs: number;
      readonly level: number;
      readonly firstBucket: number;
      readonly lastBucket: number;
    };

export function planCurve(
  floorLevel: number | null,
  fromMs: number,
  toMs: number,
  columns: number,
): CurvePlan {
  const wanted = Math.max(0, toMs - fromMs) / columns;
  let level = -1;
  if (floorLevel !== null) for (let l = floorLevel; l <= TOP_LEVEL && levelWidth(l) <= wanted; l++) level = l;
  if (level < 0) return { kind: 'points', origin: fromMs, columnMs: wanted > 0 ? wanted : 1 };
  const width = levelWidth(level);
  const columnMs = Math.floor(wanted / width) * width;
  return {
    kind: 'buckets',
    origin: Math.floor(fromMs / columnMs) * columnMs,
    columnMs,
    level,
    firstBucket: Math.floor(fromMs / width),
    lastBucket: Math.floor(toMs / width),
  };
}

export type CurvePoint = [number, number];

/**
 * Per column (`origin + k * columnMs`) its first, lowest, highest and last point (M4): a line chart
 * of that many columns draws the same from them as from every point. Points and buckets must come in
 * time order (buckets by their number).
 */
export function createM4(origin: number, columnMs: number) {
  const out: CurvePoint[] = [];
  let column = Number.NaN;
  let first: CurvePoint = [0, 0];
  let last: CurvePoint = first;
  let min: CurvePoint = first;
  let max: CurvePoint = first;
  let count = 0;
  const emit = (): void => {
    if (Number.isNaN(column)) return;
    const kept = [first, min, max, last].filter(
      (p, i, all) => all.findIndex((q) => q[0] === p[0] && q[1] === p[1]) === i,
    );
    kept.sort((a, b) => a[0] - b[0]);
    out.push(...kept);
  };
  const enter = (t: number): boolean => {
    const k = Math.floor((t - origin) / columnMs);
    if (k === column) return false;
    emit();
    column = k;
    return true;
  };
  return {
    addPoint(t: number, v: number): void {
      count++;
      const p: CurvePoint = [t, v];
      if (enter(t)) {
        first = last = min = max = p;
        return;
      }
      last = p;
      if (v < min[1]) min = p;
      if (v > max[1]) max = p;
    },
    /** A bucket's values as BUCKET_COLUMNS orders them. */
    addBucket(b: ArrayLike<number>): void {
      count += Number(b[0]);
      const f: CurvePoint = [b[1]!, b[2]!];
      const l: CurvePoint = [b[3]!, b[4]!];
      const lo: CurvePoint = [b[5]!, b[6]!];
      const hi: CurvePoint = [b[7]!, b[8]!];
      if (enter(f[0])) {
        [first, last, min, max] = [f, l, lo, hi];
        return;
      }
      if (f[0] < first[0]) first = f;
      if (l[0] >= last[0]) last = l;
      if (lo[1] < min[1]) min = lo;
      if (hi[1] > max[1]) max = hi;
    },
    /** The points kept, in time order, and how many points they stand for. */
    finish(): { data: CurvePoint[]; count: number } {
      emit();
      column = Number.NaN;
      return { data: out, count };
    },
  };
}

/** The bounds (normalized times) and plan of reading a series for a query. */
export function planRead(summary: SeriesSummary, query: Pick<CurveQuery, 'from' | 'to' | 'columns'>) {
  const from = query.from ?? summary.firstTime;
  const to = query.to ?? summary.lastTime;
  return { from, to, plan: planCurve(summary.floorLevel, timeMs(from), timeMs(to), query.columns) };
}

/** The curve from what the plan read: the points' [time, value] rows, or the buckets' values. */
export function curveOf(
  metricName: string,
  summary: SeriesSummary,
  plan: CurvePlan,
  rows: Iterable<readonly unknown[]>,
): MetricCurve {
  const m4 = createM4(plan.origin, plan.columnMs);
  if (plan.kind === 'points')
    for (const [time, text] of rows as Iterable<readonly [string, string]>) {
      const value = metricNumber(text);
      if (value !== undefined) m4.addPoint(timeMs(time), value);
    }
  else for (const row of rows) m4.addBucket(row as ArrayLike<number>);
  const { data, count } = m4.finish();
  return {
    metricName,
    points: summary.points,
    firstMs: timeMs(summary.firstTime),
    lastMs: timeMs(summary.lastTime),
    minValue: summary.minValue,
    maxValue: summary.maxValue,
    origin: plan.origin,
    columnMs: plan.columnMs,
    pointsInColumns: count,
    data,
  };
}
