import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricCurve, MetricLogRow, ObservationStore } from '../../services/experiment/common/ports.ts';

const BASE = Date.UTC(2026, 0, 1);
/** A normalized time `ms` milliseconds after a fixed instant. */
const stamp = (ms: number): string => new Date(BASE + ms).toISOString().replace('Z', '000Z');
const reported = (trialName: string, logs: readonly MetricLogRow[], eventId = randomUUID()) =>
  ({ kind: 'reported', eventId, trialName, logs }) as const;
const trial = (prefix: string): string => `${prefix}-${randomUUID()}`;

/** n points 10 ms apart from `start`, a wave with spikes up and down every 997th and 1,009th point. */
function wave(start: number, n: number): { ms: number; value: number }[] {
  return Array.from({ length: n }, (_, j) => {
    const i = start + j;
    const spike = i % 997 === 0 ? 50 + (i % 13) : i % 1_009 === 0 ? -50 - (i % 11) : 0;
    return { ms: BASE + i * 10, value: Math.sin(i / 300) + (i % 7) / 100 + spike };
  });
}
const logsOf = (points: readonly { ms: number; value: number }[], metric = 'loss') =>
  points.map((p) => ({ time: stamp(p.ms - BASE), metricName: metric, value: String(p.value) }));

/**
 * What a chart gets is exact: for every column whose points all lie between fromMs and toMs, the
 * lowest and the highest of them are among the curve's points; no column brings more than four.
 */
export function expectColumnsKept(
  curve: MetricCurve,
  points: readonly { ms: number; value: number }[],
  fromMs: number,
  toMs: number,
): void {
  const column = (t: number) => Math.floor((t - curve.origin) / curve.columnMs);
  const byColumn = new Map<number, { ms: number; value: number }[]>();
  for (const p of points) byColumn.set(column(p.ms), [...(byColumn.get(column(p.ms)) ?? []), p]);
  const kept = new Set(curve.data.map(([t, v]) => `${t}:${v}`));
  const missing: string[] = [];
  let checked = 0;
  for (const [k, inColumn] of byColumn) {
    if (inColumn.some((p) => p.ms < fromMs || p.ms > toMs)) continue;
    checked++;
    const lo = inColumn.reduce((a, b) => (b.value < a.value ? b : a));
    const hi = inColumn.reduce((a, b) => (b.value > a.value ? b : a));
    for (const p of [lo, hi])
      if (!kept.has(`${p.ms}:${p.value}`)) missing.push(`column ${k}: ${p.ms} ${p.value}`);
  }
  expect(missing).toEqual([]);
  expect(checked).toBeGreaterThan(0);
  const columns = new Set(curve.data.map(([t]) => column(t)));
  expect(curve.data.length).toBeLessThanOrEqual(4 * columns.size);
  for (let i = 1; i < curve.data.length; i++)
    expect(curve.data[i]![0]).toBeGreaterThanOrEqual(curve.data[i - 1]![0]);
}

/** The curves an ObservationStore keeps as it applies logs (part of the store contract). */
export function describeCurveContract(name: string, open: () => Promise<ObservationStore>): void {
  describe(`ObservationStore curves: ${name}`, () => {
    let store: ObservationStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('gives a small series whole, numeric values only, in time order; nothing for an unknown trial or metric', async () => {
      const t = trial('curve-small');
      await store.apply([
        reported(t, [
          { time: stamp(3_000), metricName: 'loss', value: '0.3' },
          { time: stamp(1_000), metricName: 'loss', value: '0.1' },
          { time: stamp(2_000), metricName: 'loss', value: 'unavailable' },
          { time: stamp(2_000), metricName: 'acc', value: '1e-3' },
          { time: stamp(4_000), metricName: 'note', value: 'nan' },
        ]),
      ]);
      await store.apply([reported(t, [{ time: stamp(2_500), metricName: 'loss', value: ' 0.25 ' }])]);
      const curves = await store.curves({ trialName: t, columns: 800 });
      expect(curves.map((c) => c.metricName)).toEqual(['acc', 'loss']);
      const loss = curves[1]!;
      expect(loss).toMatchObject({
        points: 3,
        firstMs: BASE + 1_000,
        lastMs: BASE + 3_000,
        minValue: 0.1,
        maxValue: 0.3,
        pointsInColumns: 3,
      });
      expect(loss.data).toEqual([
        [BASE + 1_000, 0.1],
        [BASE + 2_500, 0.25],
        [BASE + 3_000, 0.3],
      ]);
      expect(await store.curves({ trialName: t, metricName: 'acc', columns: 1 })).toEqual([
        expect.objectContaining({ metricName: 'acc', points: 1, data: [[BASE + 2_000, 0.001]] }),
      ]);
      // One column: its first, lowest, highest and last point.
      expect((await store.curves({ trialName: t, metricName: 'loss', columns: 1 }))[0]!.data).toHaveLength(3);
      expect(await store.curves({ trialName: t, metricName: 'note', columns: 10 })).toEqual([]);
      expect(await store.curves({ trialName: trial('curve-none'), columns: 10 })).toEqual([]);
    });

    it('keeps the lowest and highest of every column of a large series, at any zoom', {
      timeout: 120_000,
    }, async () => {
      const t = trial('curve-large');
      // Read point by point first, then past the limit (buckets from the stored points), then more
      // points into the buckets, some of them out of order with a new highest.
      const points = wave(0, 30_000);
      await store.apply([reported(t, logsOf(points.slice(0, 6_000)))]);
      await store.apply([reported(t, logsOf(points.slice(6_000, 20_000)))]);
      const late = [
        ...points.slice(20_000),
        { ms: BASE + 123_455, value: 1_000 },
        { ms: BASE + 5, value: -1_000 },
      ];
      await store.apply([reported(t, logsOf(late.slice(0, 5_000))), reported(t, logsOf(late.slice(5_000)))]);
      const all = [...points, ...late.slice(-2)];
      const whole = (await store.curves({ trialName: t, metricName: 'loss', columns: 500 }))[0]!;
      expect(whole).toMatchObject({
        points: 30_002,
        minValue: -1_000,
        maxValue: 1_000,
        pointsInColumns: 30_002,
      });
      // 300 s over 500 columns: whole buckets of 512 ms.
      expect(whole.columnMs).toBe(512);
      expectColumnsKept(whole, all, whole.firstMs, whole.lastMs);
      for (const [from, to, columns] of [
        [90_000, 180_000, 500],
        [120_000, 135_000, 500],
        [123_000, 123_500, 7],
      ] as const) {
        const zoomed = (
          await store.curves({ trialName: t, metricName: 'loss', from: stamp(from), to: stamp(to), columns })
        )[0]!;
        expect(zoomed.columnMs).toBeLessThanOrEqual((to - from) / columns);
        expectColumnsKept(zoomed, all, BASE + from, BASE + to);
      }
    });

    it('keeps every curve exact when more series pass the limit in one transaction than it builds', {
      timeout: 120_000,
    }, async () => {
      // Six series pass the limit together: four are built in that transaction, the other two read
      // point by point until their next batch builds them.
      const trials = Array.from({ length: 6 }, () => trial('curve-together'));
      const points = wave(0, 10_002);
      await store.apply(trials.map((t) => reported(t, logsOf(points.slice(0, 5_000)))));
      const expectExact = async (upTo: number) => {
        for (const t of trials) {
          const curve = (await store.curves({ trialName: t, metricName: 'loss', columns: 300 }))[0]!;
          expect(curve).toMatchObject({ points: upTo, pointsInColumns: upTo });
          expectColumnsKept(curve, points.slice(0, upTo), curve.firstMs, curve.lastMs);
        }
      };
      await store.apply(trials.map((t) => reported(t, logsOf(points.slice(5_000, 10_001)))));
      await expectExact(10_001);
      await store.apply(trials.map((t) => reported(t, logsOf(points.slice(10_001)))));
      await expectExact(10_002);
    });

    it('counts a redelivered report once and forgets a deleted trial; later reports start again', async () => {
      const t = trial('curve-delete');
      const first = reported(t, logsOf(wave(0, 20)));
      await store.apply([first]);
      await store.apply([first]);
      expect((await store.curves({ trialName: t, columns: 100 }))[0]!.points).toBe(20);
      await store.apply([
        { kind: 'deleted', eventId: randomUUID(), trialName: t },
        reported(t, logsOf(wave(100, 2))),
      ]);
      expect((await store.curves({ trialName: t, columns: 100 }))[0]).toMatchObject({
        points: 2,
        firstMs: BASE + 1_000,
      });
      await store.apply([{ kind: 'deleted', eventId: randomUUID(), trialName: t }]);
      expect(await store.curves({ trialName: t, columns: 100 })).toEqual([]);
    });
  });
}
