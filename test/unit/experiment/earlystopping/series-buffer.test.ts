import { describe, expect, it } from 'vitest';
import { SeriesBuffer } from '../../../../services/experiment/earlystopping/series-buffer.ts';

describe('SeriesBuffer', () => {
  it('keeps values and times in push order across growth', () => {
    const series = new SeriesBuffer(1_000);
    for (let i = 0; i < 100; i++) series.push(i / 10, 1_000 + i);
    expect(series.length).toBe(100);
    expect([series.value(0), series.value(17), series.value(99)]).toEqual([0, 1.7, 9.9]);
    expect([series.atMs(0), series.atMs(99)]).toEqual([1_000, 1_099]);
  });

  it('drops values past its limit', () => {
    const series = new SeriesBuffer(3);
    for (let i = 1; i <= 5; i++) series.push(i, i);
    expect(series.length).toBe(3);
    expect([series.value(0), series.value(1), series.value(2)]).toEqual([1, 2, 3]);
  });
});
