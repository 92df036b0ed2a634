import { describe, expect, it } from 'vitest';
import {
  cholesky,
  solveLower,
  solveUpperTransposed,
  symmetricEigen,
} from '../../../../../services/experiment/suggestion/models/linalg.ts';
import {
  logSumExp,
  normalCdf,
  normalQuantile,
} from '../../../../../services/experiment/suggestion/models/numeric.ts';
import { axesOf, type NumericAxis } from '../../../../../services/experiment/suggestion/models/unit-space.ts';

describe('normal distribution', () => {
  it.each([1e-10, 0.001, 0.02, 0.3, 0.5, 0.9, 0.999])('quantile inverts the CDF at %f', (p) => {
    expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 6);
  });
  it('keeps the lower tail accurate', () => {
    expect(normalCdf(-8) / 6.22096057427178e-16).toBeCloseTo(1, 5);
  });
  it('sums exponentials without overflow', () => {
    expect(logSumExp([1000, 1000])).toBeCloseTo(1000 + Math.log(2), 12);
    expect(logSumExp([])).toBe(Number.NEGATIVE_INFINITY);
  });
});

describe('linear algebra', () => {
  const a = Float64Array.from([4, 1, 0.5, 1, 3, 0.2, 0.5, 0.2, 2]);
  it('decomposes a symmetric matrix: V·diag(λ)·Vᵀ gives it back', () => {
    const { values, vectors } = symmetricEigen(a, 3);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        let sum = 0;
        for (let k = 0; k < 3; k++) sum += vectors[i * 3 + k]! * values[k]! * vectors[j * 3 + k]!;
        expect(sum).toBeCloseTo(a[i * 3 + j]!, 10);
      }
    }
  });
  it('solves K·x = b through the Cholesky factor, and refuses an indefinite matrix', () => {
    const l = cholesky(a, 3)!;
    const b = [1, 2, 3];
    const x = solveUpperTransposed(l, 3, solveLower(l, 3, b, new Float64Array(3)), new Float64Array(3));
    for (let i = 0; i < 3; i++)
      expect(a[i * 3]! * x[0]! + a[i * 3 + 1]! * x[1]! + a[i * 3 + 2]! * x[2]!).toBeCloseTo(b[i]!, 10);
    expect(cholesky(Float64Array.from([1, 2, 2, 1]), 2)).toBeUndefined();
  });
});

describe('unit cube encoding', () => {
  const [logAxis, stepped, integer] = axesOf([
    { kind: 'float', name: 'lr', low: 1e-5, high: 1, distribution: 'log-uniform' },
    { kind: 'float', name: 'p', low: 0, high: 1, step: 0.25, distribution: 'uniform' },
    { kind: 'int', name: 'k', low: 1, high: 8, step: 1, distribution: 'log-uniform' },
  ]) as NumericAxis[];
  it('puts a log-uniform parameter on a log scale', () => {
    expect(logAxis!.toUnit(1e-3)).toBeCloseTo(0.4, 12);
    expect(logAxis!.fromUnit(0.4)).toBeCloseTo(1e-3, 15);
    expect(logAxis!.fromUnit(-1)).toBe(1e-5);
  });
  it('gives each stepped value an equal cell and snaps to the step', () => {
    expect(stepped!.levels).toBe(5);
    const [from, to] = stepped!.cellOf(0.5);
    expect(from).toBeCloseTo(0.4, 12);
    expect(to).toBeCloseTo(0.6, 12);
    expect([0, 0.19, 0.21, 0.99].map(stepped!.fromUnit)).toEqual([0, 0, 0.25, 1]);
  });
  it('keeps log-scaled integers integral and in bounds', () => {
    for (let u = 0; u <= 1; u += 0.01) {
      const k = integer!.fromUnit(u);
      expect(Number.isInteger(k) && k >= 1 && k <= 8).toBe(true);
    }
  });
});
