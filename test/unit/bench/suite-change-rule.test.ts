import { describe, expect, it } from 'vitest';
import { judge, parseCells } from '../../../bench/suite/change-rule.ts';
import { reportLines, summarize } from '../../../bench/suite/report.ts';

/** A report of two cells whose runs are `ours` against Optuna's 1, 2, …, 10. */
function report(ours: { f1: number[]; f8: number[] }): string {
  const theirs = Array.from({ length: 10 }, (_, i) => i + 1);
  const runs = theirs.flatMap((t, seed) => [
    { sampler: 'cmaes', cell: 'f1-d2-b50', seed, ours: ours.f1[seed]!, theirs: t },
    { sampler: 'cmaes', cell: 'f8-d2-b50', seed, ours: ours.f8[seed]!, theirs: t },
  ]);
  return reportLines(summarize(runs), { cmaes: 'cmaes' }).join('\n');
}
const scaled = (factor: number) => Array.from({ length: 10 }, (_, i) => factor * (i + 1));

describe('suite change rule', () => {
  it('reads every cell of a report with its ratio and bootstrap bounds', () => {
    const cells = parseCells(report({ f1: scaled(0.5), f8: scaled(1) }));
    expect([...cells.keys()]).toEqual(['cmaes f1-d2-b50', 'cmaes f8-d2-b50']);
    const f1 = cells.get('cmaes f1-d2-b50')!;
    expect(f1.ratio).toBe(0.5);
    expect(f1.low).toBeLessThanOrEqual(0.5);
    expect(f1.high).toBeGreaterThanOrEqual(0.5);
  });

  it('holds when the geometric mean falls and no cell rises past its old upper bound', () => {
    const before = parseCells(report({ f1: scaled(1), f8: scaled(1) }));
    const after = parseCells(report({ f1: scaled(0.2), f8: scaled(1.05) }));
    const [verdict] = judge(before, after);
    expect(verdict).toMatchObject({ sampler: 'cmaes', cells: 2, worse: [], holds: true });
    expect(verdict!.better).toEqual(['cmaes f1-d2-b50']);
    expect(verdict!.geoAfter).toBeLessThan(verdict!.geoBefore);
  });

  it('is broken by one cell worse beyond its noise, though the geometric mean falls', () => {
    const before = parseCells(report({ f1: scaled(1), f8: scaled(1) }));
    const after = parseCells(report({ f1: scaled(0.01), f8: scaled(4) }));
    const [verdict] = judge(before, after);
    expect(verdict!.geoAfter).toBeLessThan(verdict!.geoBefore);
    expect(verdict).toMatchObject({ worse: ['cmaes f8-d2-b50'], holds: false });
  });

  it('is broken by a higher geometric mean with every cell inside its noise', () => {
    const before = parseCells(report({ f1: scaled(1), f8: scaled(1) }));
    const after = parseCells(report({ f1: scaled(1.1), f8: scaled(1.1) }));
    const [verdict] = judge(before, after);
    expect(verdict).toMatchObject({ worse: [], holds: false });
  });
});
