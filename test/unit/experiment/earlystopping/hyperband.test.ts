import { describe, expect, it } from 'vitest';
import {
  bracketOf,
  bracketsFor,
  hyperbandStep,
  readHyperbandSettings,
} from '../../../../services/experiment/earlystopping/pruners/hyperband.ts';
import { bookWith, stepInput } from './step-input.ts';

const settings = (given: Record<string, string>) =>
  readHyperbandSettings(Object.entries(given).map(([name, value]) => ({ name, value })));

describe('hyperband brackets', () => {
  it.each([
    [1, 81, 3, [81, 34, 15, 8, 5]],
    [1, 100, 3, [81, 34, 15, 8, 5]],
    [2, 50, 2, [16, 10, 7, 5, 5]],
    [5, 100, 3, [9, 5, 3]],
    [4, 4, 3, [1]],
  ])('min %i, max %i, reduction %i: budgets %j (as Optuna 5.0 computes them)', (min, max, eta, budgets) => {
    expect(bracketsFor(min, max, eta)).toEqual({
      count: budgets.length,
      budgets,
      total: budgets.reduce((a, b) => a + b, 0),
    });
  });

  it("puts a trial in a bracket by the CRC-32 of its name, weighted by the brackets' budgets", () => {
    const brackets = bracketsFor(1, 81, 3);
    // Budgets 81, 34, 15, 8, 5 end at 81, 115, 130, 138, 143.
    // crc32('exp-a') = 1997923362, % 143 = 6: bracket 0.
    expect(bracketOf('exp-a', brackets)).toBe(0);
    // crc32('exp-9') = 312819172, % 143 = 94: bracket 1.
    expect(bracketOf('exp-9', brackets)).toBe(1);
    // crc32('exp-3') = 4067480826 (above 2^31), % 143 = 123: bracket 2.
    expect(bracketOf('exp-3', brackets)).toBe(2);
    // crc32('exp-2') = 2239226988, % 143 = 141: bracket 4.
    expect(bracketOf('exp-2', brackets)).toBe(4);
    const counts = [0, 0, 0, 0, 0];
    for (let i = 0; i < 14_300; i++) counts[bracketOf(`exp-trial-${i}`, brackets)]! += 1;
    expect(counts[0]).toBeGreaterThan(counts[1]!);
    expect(counts[1]).toBeGreaterThan(counts[4]!);
  });
});

describe('hyperband: a trial competes in its bracket only', () => {
  const s = settings({ min_resource: '1', max_resource: '81', reduction_factor: '3' });
  const brackets = bracketsFor(1, 81, 3);
  const inBracket = (bracket: number) => {
    for (let i = 0; ; i++) if (bracketOf(`exp-${i}`, brackets) === bracket) return `exp-${i}`;
  };

  it('bracket b starts at min_resource · reduction_factor^b and compares with its own records', () => {
    const trialName = inBracket(1);
    // Bracket 0's records at rung 0 do not count; bracket 1's first rung is step 3.
    const rungs = bookWith([0, 0, 0], 0, 0);
    expect(hyperbandStep(s, stepInput([9], { trialName, rungs }), 0).records).toEqual([]);
    const atRung = hyperbandStep(s, stepInput([9, 9, 9], { trialName, rungs }), 0);
    expect(atRung).toMatchObject({
      stop: false,
      records: [{ bracket: 1, rung: 0, step: 3, promoted: true }],
    });
    const crowded = bookWith([0, 0, 0], 0, 1);
    const stopped = hyperbandStep(s, stepInput([9, 9, 9], { trialName, rungs: crowded }), 0);
    expect(stopped.stop).toBe(true);
    expect(stopped.evidence).toMatch(
      /^bracket 1 of 5: value 9 at step 3 \(rung 0, from step 3\) is not in the top 1\/3/,
    );
  });

  it('max_resource auto: no pruning until a trial succeeded, then brackets up to its steps', () => {
    const auto = settings({});
    const trialName = inBracket(0);
    expect(hyperbandStep(auto, stepInput([9], { trialName, rungs: bookWith([0]) }), 0).records).toEqual([]);
    expect(hyperbandStep(auto, stepInput([9], { trialName, rungs: bookWith([0]) }), 81).stop).toBe(true);
  });
});
