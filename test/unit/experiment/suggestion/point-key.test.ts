import { describe, expect, it } from 'vitest';
import { pointKey } from '../../../../services/experiment/suggestion/space.ts';

describe('pointKey', () => {
  it('is equal for equal points and different for different ones', () => {
    expect(pointKey([0.1, 3, 'adam'])).toBe(pointKey([0.1, 3, 'adam']));
    expect(pointKey([0.1 + 0.2, 3])).not.toBe(pointKey([0.3, 3]));
    expect(pointKey([0, 1])).toBe(pointKey([-0, 1]));
    expect(pointKey([1])).not.toBe(pointKey(['1']));
    expect(pointKey([])).toBe('');
  });

  it('cannot be fooled by strings that look like other values or hold the separators', () => {
    const points: (number | string)[][] = [
      ['a', 'bc'],
      ['ab', 'c'],
      ['a\u0001', 'b'],
      ['a', '\u0001b'],
      ['1:a', ''],
      ['', '1:a'],
      [String.fromCharCode(0, 0, 0, 0, 0)],
      [0],
      [Number.MIN_VALUE],
      [5e-324, 1],
    ];
    const keys = new Set(points.map(pointKey));
    expect(keys.size).toBe(points.length);
  });
});
