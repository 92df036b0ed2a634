import { describe, expect, it } from 'vitest';

type Point = [number, number];
interface Curve {
  add(t: number, v: number): void;
  points(): Point[];
  readonly count: number;
  readonly origin: number;
  readonly columnMs: number;
}
interface CurveModule {
  createCurve(
    reduced: { origin: number; columnMs: number; data: Point[]; points?: number },
    maxColumns: number,
  ): Curve;
  zoomed(coarse: Curve, fine: Curve, from: number, to: number): Point[];
}
// The page's own module (plain JavaScript served to the browser as it is).
const page = new URL('../../../../services/experiment/web/page/curve.js', import.meta.url).href;
const { createCurve, zoomed } = (await import(page)) as CurveModule;

/** Per column of the curve's grid, the lowest and highest of `points` must be drawn. */
function expectExtremesKept(curve: Curve, points: readonly Point[]): void {
  const columns = new Map<number, Point[]>();
  for (const p of points) {
    const k = Math.floor((p[0] - curve.origin) / curve.columnMs);
    columns.set(k, [...(columns.get(k) ?? []), p]);
  }
  const drawn = curve.points();
  for (const inColumn of columns.values()) {
    const values = inColumn.map((p) => p[1]);
    for (const v of [Math.min(...values), Math.max(...values)])
      expect(drawn.some((p) => p[1] === v && inColumn.some((q) => q[0] === p[0]))).toBe(true);
  }
  expect(drawn.length).toBeLessThanOrEqual(4 * columns.size);
}

describe("the trial page's curve", () => {
  it('keeps what the server sent, and adds live points to their column: first, lowest, highest, last', () => {
    const curve = createCurve(
      {
        origin: 0,
        columnMs: 10,
        data: [
          [0, 1],
          [5, 3],
          [12, 2],
        ],
        points: 40,
      },
      100,
    );
    expect(curve.points()).toEqual([
      [0, 1],
      [5, 3],
      [12, 2],
    ]);
    for (const [t, v] of [
      [13, 9],
      [14, 0],
      [15, 4],
      [16, 5],
      [31, 7],
    ] as Point[])
      curve.add(t, v);
    expect(curve.count).toBe(45);
    expect(curve.points()).toEqual([
      [0, 1],
      [5, 3],
      [12, 2],
      [13, 9],
      [14, 0],
      [16, 5],
      [31, 7],
    ]);
  });

  it('pairs its columns up past the limit, losing no column lowest or highest', () => {
    const all: Point[] = Array.from({ length: 5_000 }, (_, i) => [
      i,
      Math.sin(i / 40) + (i % 97 === 0 ? 10 : 0),
    ]);
    const curve = createCurve({ origin: 0, columnMs: 1, data: [], points: 0 }, 200);
    for (const [t, v] of all) curve.add(t, v);
    expect(curve.count).toBe(5_000);
    // 5,000 ms in at most 200 columns: 32 ms each.
    expect(curve.columnMs).toBe(32);
    expectExtremesKept(curve, all);
    // A point back in time goes into its column.
    curve.add(100.5, -50);
    expect(curve.points()).toContainEqual([100.5, -50]);
  });

  it("zoomed in: the coarse curve's points outside the window and the fine one's inside", () => {
    const coarse = createCurve(
      {
        origin: 0,
        columnMs: 100,
        data: [
          [0, 1],
          [150, 2],
          [250, 3],
          [350, 4],
        ],
      },
      10,
    );
    const fine = createCurve(
      {
        origin: 100,
        columnMs: 10,
        data: [
          [120, 5],
          [180, 6],
          [260, 7],
        ],
      },
      100,
    );
    expect(zoomed(coarse, fine, 100, 300)).toEqual([
      [0, 1],
      [120, 5],
      [180, 6],
      [260, 7],
      [350, 4],
    ]);
  });
});
