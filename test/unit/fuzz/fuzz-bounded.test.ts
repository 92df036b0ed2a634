// The fuzz targets' bounded run (test/fuzz): each hand-written reader or writer against the library
// it stands in for, on a fixed seed (the same inputs every run), no difference and no crash. The
// longer runs are `npm run fuzz` (1,000,000 inputs per target by default).
import { describe, expect, it } from 'vitest';
import { fuzz } from '../../fuzz/fuzz-core.ts';
import { TARGETS } from '../../fuzz/targets.ts';

describe('fuzzing against the libraries (bounded, seeded)', () => {
  it.each(TARGETS.map(({ target, boundedInputs }) => [target.name, target, boundedInputs] as const))(
    '%s: same value or an error on every input',
    async (_, target, inputs) => {
      const result = await fuzz(target, { seed: 20_261_128, inputs });
      expect(result.findings).toEqual([]);
      expect([result.inputs, result.differences, result.crashes]).toEqual([inputs, 0, 0]);
    },
    60_000,
  );
});
