import { describe, expect, it } from 'vitest';
import { createM4, planCurve } from '../../../../services/experiment/dbmanager/curve-reading.ts';
import {
  BUCKETED_AFTER,
  bucketsOf,
  bucketWork,
  createCurveBatch,
  floorLevelOf,
  metricNumber,
  type SeriesSummary,
  timeMs,
} from '../../../../services/experiment/dbmanager/curves.ts';

const stamp = (ms: number): string => new Date(ms).toISOString().replace('Z', '000Z');

describe('metricNumber', () => {
  it.each([
    ['0.5', 0.5],
    [' -1e-3 ', -0.001],
    ['+.5', 0.5],
    ['5.', 5],
    ['1_000.5', 1000.5],
  ])('%j is %d', (text, value) => {
    expect(metricNumber(text)).toBe(value);
  });

  it.each(['', '  ', 'unavailable', 'nan', 'inf', '-Infinity', '0x10', '0b1', '1e', '1e400', '1-2'])(
    '%j is no number',
    (text) => {
      expect(metricNumber(text)).toBeUndefined();
    },
  );
});

describe('timeMs', () => {
  it('keeps the microseconds as the fraction, also before 1970 and for year 1', () => {
    expect(timeMs('2026-01-01T00:00:00.123456Z')).toBeCloseTo(Date.UTC(2026, 0, 1) + 123.456, 6);
    expect(timeMs('1969-12-31T23:59:59.999500Z')).toBeCloseTo(-0.5, 6);
    expect(timeMs('0001-01-01T00:00:00.000000Z')).toBe(-62_135_596_800_000);
  });
});

describe('the batch and the buckets', () => {
  it('summarizes the numeric points per series; a delete forgets what came before it', () => {
    const batch = createCurveBatch();
    batch.add('a', [
      { time: stamp(2_000), metricName: 'm', value: '2' },
      { time: stamp(1_000), metricName: 'm', value: 'x' },
      { time: stamp(2_000), metricName: 'm', value: '3' },
      { time: stamp(1_000), metricName: 'm', value: '1' },
    ]);
    batch.add('b', [{ time: stamp(5), metricName: 'm', value: '9' }]);
    batch.forget('b');
    batch.add('b', [{ time: stamp(6), metricName: 'n', value: '8' }]);
    const [a, b] = batch.pending();
    expect(a!.summary).toEqual({
      points: 3,
      minValue: 1,
      maxValue: 3,
      firstTime: stamp(1_000),
      lastTime: stamp(2_000),
      // Two points at the latest time: the later report's.
      lastValue: 3,
      floorLevel: null,
    });
    expect(a!.times).toHaveLength(3);
    expect(b).toMatchObject({ trialName: 'b', metricName: 'n', values: [8] });
  });

  it('buckets a point at every level from the floor, with first, last, lowest and highest', () => {
    const buckets = bucketsOf([stamp(10), stamp(70), stamp(5)], [1, 5, -1], 2);
    expect(buckets.filter((b) => b.level === 2)).toEqual([
      expect.objectContaining({ bucket: 0, count: 2, firstMs: 5, lastMs: 10, minValue: -1, maxValue: 1 }),
      expect.objectContaining({ bucket: 1, count: 1, firstMs: 70, maxMs: 70, maxValue: 5 }),
    ]);
    expect(buckets.filter((b) => b.level === 3)).toEqual([
      expect.objectContaining({ bucket: 0, count: 3, firstValue: -1, lastValue: 5, minMs: 5, maxMs: 70 }),
    ]);
    expect(new Set(buckets.map((b) => b.level)).size).toBe(10);
  });

  it('builds buckets once past the limit, from the store unless the batch brought every point', () => {
    const summary = (points: number, floorLevel: number | null = null): SeriesSummary => ({
      points,
      minValue: 0,
      maxValue: 1,
      firstTime: stamp(0),
      lastTime: stamp(points * 10),
      lastValue: 1,
      floorLevel,
    });
    expect(bucketWork(summary(BUCKETED_AFTER), summary(10))).toEqual({ kind: 'none' });
    expect(bucketWork(summary(BUCKETED_AFTER + 1), summary(10))).toEqual({
      kind: 'build',
      floorLevel: 2,
      fromStore: true,
    });
    expect(bucketWork(summary(BUCKETED_AFTER + 1), summary(BUCKETED_AFTER + 1))).toMatchObject({
      fromStore: false,
    });
    expect(bucketWork(summary(50_000, 3), summary(10))).toEqual({ kind: 'add', floorLevel: 3 });
    // A transaction that spent its builds from the store leaves the series for its next batch.
    expect(bucketWork(summary(BUCKETED_AFTER + 1), summary(10), 0)).toEqual({ kind: 'none' });
    expect(bucketWork(summary(BUCKETED_AFTER + 1), summary(BUCKETED_AFTER + 1), 0)).toMatchObject({
      kind: 'build',
      fromStore: false,
    });
    expect(bucketWork(summary(50_000, 3), summary(10), 0)).toEqual({ kind: 'add', floorLevel: 3 });
    // Points 10 ms apart: buckets of 64 ms hold about six.
    expect(floorLevelOf(summary(50_000))).toBe(2);
  });
});

describe('reading a curve', () => {
  it('reads whole buckets of the coarsest level no wider than a column, points below the floor', () => {
    expect(planCurve(2, 0, 300_000, 500)).toEqual({
      kind: 'buckets',
      origin: 0,
      columnMs: 512,
      level: 3,
      firstBucket: 0,
      lastBucket: 585,
    });
    // 700 ms columns hold one 512 ms bucket; the origin is a column's start.
    expect(planCurve(2, 1_000, 351_000, 500)).toMatchObject({ columnMs: 512, origin: 512, level: 3 });
    expect(planCurve(2, 0, 15_000, 500)).toEqual({ kind: 'points', origin: 0, columnMs: 30 });
    expect(planCurve(null, 0, 300_000, 500)).toEqual({ kind: 'points', origin: 0, columnMs: 600 });
    expect(planCurve(null, 7, 7, 500)).toEqual({ kind: 'points', origin: 7, columnMs: 1 });
  });

  it('keeps per column its first, lowest, highest and last point, in time order', () => {
    const m4 = createM4(0, 10);
    for (const [t, v] of [
      [0, 5],
      [1, 9],
      [2, 1],
      [3, 4],
      [4, 6],
      [12, 3],
      [13, 3],
    ] as const)
      m4.addPoint(t, v);
    m4.addBucket([4, 20, 2, 29, 8, 25, 0, 21, 10]);
    m4.addBucket([1, 28, 1, 28, 1, 28, 1, 28, 1]);
    expect(m4.finish()).toEqual({
      data: [
        [0, 5],
        [1, 9],
        [2, 1],
        [4, 6],
        [12, 3],
        [13, 3],
        [20, 2],
        [21, 10],
        [25, 0],
        [29, 8],
      ],
      count: 12,
    });
  });
});
