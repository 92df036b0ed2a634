import { describe, expect, it } from 'vitest';
import { ecdfPoints, ecdfSvg, TARGET_EXPONENTS } from '../../../bench/suite/ecdf.ts';
import { REGRET_FLOOR, summarize } from '../../../bench/suite/report.ts';
import { median } from '../../../services/experiment/earlystopping/medianstop.ts';

describe('suite report', () => {
  it('compares medians over seeds and floors regrets at 1e-8', () => {
    const runs = [0, 1, 2].flatMap((seed) => [
      { sampler: 'tpe', cell: 'f1-d2-b50', seed, ours: [1, 2, 3][seed]!, theirs: [2, 4, 6][seed]! },
      { sampler: 'tpe', cell: 'f3-d2-b50', seed, ours: 0, theirs: REGRET_FLOOR },
    ]);
    const cells = summarize(runs);
    const f1 = cells.find((c) => c.cell === 'f1-d2-b50')!;
    expect([f1.ours, f1.theirs, f1.ratio]).toEqual([2, 4, 0.5]);
    expect(f1.low).toBeLessThanOrEqual(0.5);
    expect(f1.high).toBeGreaterThanOrEqual(0.5);
    expect(cells.find((c) => c.cell === 'f3-d2-b50')!.ratio).toBe(1);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('counts the (run, target) pairs reached by each evaluation', () => {
    // Regret 10 after one evaluation reaches k = 2 … 1 (6 targets); 1e-9 after two reaches all.
    const points = ecdfPoints([{ dims: 2, regrets: [10, 1e-9] }]);
    expect(points).toHaveLength(TARGET_EXPONENTS.length);
    expect(points[5]).toEqual([Math.log10(0.5), 6 / 51]);
    expect(points.at(-1)).toEqual([0, 1]);
    expect(ecdfSvg([{ sampler: 'tpe', ours: [{ dims: 2, regrets: [10, 1e-9] }], theirs: [] }])).toContain(
      '<path',
    );
  });
});
