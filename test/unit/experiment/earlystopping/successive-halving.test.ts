import { describe, expect, it } from 'vitest';
import { RungBook } from '../../../../services/experiment/earlystopping/pruners/rung-book.ts';
import {
  autoMinResource,
  promotionCutOff,
  readSuccessiveHalvingSettings,
  successiveHalvingStep,
} from '../../../../services/experiment/earlystopping/pruners/successive-halving.ts';
import { bookWith, record, stepInput } from './step-input.ts';

const settings = (given: Record<string, string>) =>
  readSuccessiveHalvingSettings(
    Object.entries({ min_resource: '2', reduction_factor: '3', ...given }).map(([name, value]) => ({
      name,
      value,
    })),
  );

describe('successivehalving: rungs and promotion', () => {
  it('records the value at each rung step, min_resource · reduction_factor^(rate + k): 2, 6, 18', () => {
    /** The steps at which a lone trial, judged step by step, records a rung. */
    const rungSteps = (s: ReturnType<typeof settings>) => {
      const rungs = new RungBook();
      const steps: number[] = [];
      for (let step = 1; step <= 20; step++) {
        const verdict = successiveHalvingStep(s, stepInput(Array(step).fill(1), { rungs }), 0);
        for (const made of verdict.records) {
          rungs.add(made);
          steps.push(made.step);
        }
      }
      return steps;
    };
    expect(rungSteps(settings({}))).toEqual([2, 6, 18]);
    expect(rungSteps(settings({ min_early_stopping_rate: '1' }))).toEqual([6, 18]);
    // A trial first judged past a rung's step (a wrapped pruner's pace) records it there.
    expect(successiveHalvingStep(settings({}), stepInput([1, 1, 1]), 0).records).toEqual([
      record({ step: 3, value: 1 }),
    ]);
  });

  it('promotes the first trial at a rung, then only a trial in the top 1/reduction_factor', () => {
    const s = settings({});
    const first = successiveHalvingStep(s, stepInput([5, 5]), 0);
    expect(first).toMatchObject({ stop: false, records: [record({ step: 2, value: 5, promoted: true })] });
    // Fewer than reduction_factor values: only the best (or equal to it) goes on.
    expect(successiveHalvingStep(s, stepInput([9, 4], { rungs: bookWith([4]) }), 0).stop).toBe(false);
    const worse = successiveHalvingStep(s, stepInput([9, 4.5], { rungs: bookWith([4]) }), 0);
    expect(worse.stop).toBe(true);
    expect(worse.evidence).toBe(
      'value 4.5 at step 2 (rung 0, from step 2) is not in the top 1/3 of the 2 values recorded at the rung (cut-off 4)',
    );
    expect(worse.records).toEqual([record({ step: 2, value: 4.5, promoted: false })]);
  });

  it('compares the value at the rung step, not the best so far', () => {
    expect(successiveHalvingStep(settings({}), stepInput([1, 6], { rungs: bookWith([4]) }), 0).stop).toBe(
      true,
    );
  });

  it('keeps the top third of nine values: the third best is the cut-off, a tie with it goes on', () => {
    const others = [1, 2, 3, 4, 5, 6, 7, 8];
    expect(promotionCutOff(others, 3, 'MINIMIZE')).toBe(3);
    expect(successiveHalvingStep(settings({}), stepInput([0, 3], { rungs: bookWith(others) }), 0).stop).toBe(
      false,
    );
    expect(
      successiveHalvingStep(settings({}), stepInput([0, 3.01], { rungs: bookWith(others) }), 0).stop,
    ).toBe(true);
  });

  it('MAXIMIZE keeps the largest values', () => {
    const others = [1, 2, 3, 4, 5, 6, 7, 8];
    expect(promotionCutOff(others, 3, 'MAXIMIZE')).toBe(6);
    const at = (value: number) =>
      successiveHalvingStep(
        settings({}),
        stepInput([0, value], { rungs: bookWith(others), direction: 'MAXIMIZE' }),
        0,
      ).stop;
    expect([at(6), at(5.9)]).toEqual([false, true]);
  });

  it('stops every trial while the rung holds no more than bootstrap_count values', () => {
    const s = settings({ bootstrap_count: '2' });
    const verdict = successiveHalvingStep(s, stepInput([0, 0], { rungs: bookWith([1]) }), 0);
    expect(verdict).toMatchObject({ stop: true, records: [record({ step: 2, value: 0, promoted: false })] });
    expect(verdict.evidence).toBe(
      'value 0 at step 2 (rung 0, from step 2): only 2 values recorded at the rung, bootstrap_count is 2',
    );
    expect(successiveHalvingStep(s, stepInput([0, 0], { rungs: bookWith([1, 2]) }), 0).stop).toBe(false);
  });

  it('never judges a recorded rung again, and a recorded refusal stands (a restarted judge)', () => {
    const book = bookWith([1, 1, 1, 1, 1]);
    book.add(record({ value: 9, step: 2, promoted: true }));
    // Worse than everyone now, but rung 0 was decided: nothing until rung 1 at step 6.
    expect(successiveHalvingStep(settings({}), stepInput([9, 9, 9], { rungs: book }), 0)).toMatchObject({
      stop: false,
      records: [],
    });
    const refused = bookWith([1]);
    refused.add(record({ value: 9, step: 2, promoted: false }));
    const verdict = successiveHalvingStep(settings({}), stepInput([9, 9, 0], { rungs: refused }), 0);
    expect(verdict).toMatchObject({ stop: true, records: [] });
    expect(verdict.evidence).toBe('value 9 at step 2 (rung 0) was not promoted');
  });

  it('min_resource auto: no pruning before a trial succeeded, then a hundredth of the longest', () => {
    const s = settings({ min_resource: 'auto' });
    expect(successiveHalvingStep(s, stepInput([9], { rungs: bookWith([1]) }), 0).records).toEqual([]);
    expect(autoMinResource(250)).toBe(2);
    expect(autoMinResource(99)).toBe(1);
    expect(successiveHalvingStep(s, stepInput([9, 9], { rungs: bookWith([1]) }), 250).stop).toBe(true);
  });
});
