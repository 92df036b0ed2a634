import { describe, expect, it } from 'vitest';

type Point = [number, number];
interface DecimateModule {
  decimate(points: Point[], zoom: { start: number; end: number }): Point[];
}
// The page's own module (plain JavaScript served to the browser as it is).
const page = new URL('../../../../services/experiment/web/page/decimate.js', import.meta.url).href;
const { decimate } = (await import(page)) as DecimateModule;

/** n points one time unit apart, values from `value`. */
const curve = (n: number, value: (i: number) => number): Point[] =>
  Array.from({ length: n }, (_, i): Point => [i, value(i)]);
const wave = (i: number) => Math.sin(i / 50) + (i % 7) / 10;

describe("the trial page's decimate", () => {
  it('keeps a curve of up to 4,000 points as it is', () => {
    const points = curve(4_000, wave);
    expect(decimate(points, { start: 0, end: 100 })).toBe(points);
  });

  it('keeps the first and the last point, in time order, and at most two points a slice', () => {
    const points = curve(100_000, wave);
    const kept = decimate(points, { start: 0, end: 100 });
    expect(kept[0]).toBe(points[0]);
    expect(kept.at(-1)).toBe(points.at(-1));
    // Never backwards (the first or last point may come twice: alone and as its slice's extreme).
    for (let i = 1; i < kept.length; i++) expect(kept[i]![0]).toBeGreaterThanOrEqual(kept[i - 1]![0]);
    expect(kept.every((p) => points[p[0]] === p)).toBe(true);
    expect(kept.length).toBeLessThanOrEqual(2 + 2 * 1_500);
    expect(kept.length).toBeGreaterThan(1_500);
  });

  it('loses no peak: the highest and lowest value of every slice stay, whatever the zoom', () => {
    const points = curve(100_000, wave);
    points[12_345] = [12_345, 1_000];
    points[87_654] = [87_654, -1_000];
    points[50_001] = [50_001, 500];
    for (const zoom of [
      { start: 0, end: 100 },
      { start: 40, end: 60 },
      { start: 90, end: 100 },
    ]) {
      const kept = decimate(points, zoom);
      expect(kept).toContain(points[12_345]);
      expect(kept).toContain(points[87_654]);
      expect(kept).toContain(points[50_001]);
    }
  });

  it('gives the zoomed-in window 1,500 slices and each side 100', () => {
    const points = curve(100_000, wave);
    const kept = decimate(points, { start: 40, end: 60 });
    const inside = kept.filter(([t]) => t >= 40_000 && t < 60_000).length;
    const before = kept.filter(([t]) => t < 40_000).length;
    const after = kept.filter(([t]) => t >= 60_000).length;
    expect(inside).toBeGreaterThanOrEqual(1_500);
    expect(inside).toBeLessThanOrEqual(2 * 1_500);
    expect(before).toBeLessThanOrEqual(1 + 2 * 100);
    expect(after).toBeLessThanOrEqual(1 + 2 * 100);
    // Denser inside: the window's points are ten times closer together than its sides'.
    expect(inside / 20_000).toBeGreaterThan((10 * (before + after)) / 80_000);
  });
});
