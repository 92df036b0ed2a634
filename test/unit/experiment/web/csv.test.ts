import { describe, expect, it } from 'vitest';
import { toCsv } from '../../../../services/experiment/web/csv.ts';

describe('toCsv', () => {
  it('quotes cells with commas, quotes or line breaks; empty for null', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', 'say "hi"'],
          [null, 'line\nbreak'],
          [1, undefined],
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n,"line\nbreak"\r\n1,\r\n');
  });
});
