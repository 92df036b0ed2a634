// The front of an experiment's trials as the read model gives them, on hand-made trials: which
// trials count, their ranks, the front and its hypervolume, with a reference point given or not.
import { describe, expect, it } from 'vitest';
import type {
  ObjectiveView,
  TrialObjectiveValues,
} from '../../../../../services/experiment/common/read-model.ts';
import { paretoView } from '../../../../../services/experiment/suggestion/objective-views/front.ts';

const ACCURACY: ObjectiveView = { metricName: 'accuracy', type: 'MAXIMIZE' };
const LATENCY: ObjectiveView = { metricName: 'latency_ms', type: 'MINIMIZE' };

/** Name, condition, accuracy, latency. */
const TRIALS: [string, string, number | null, number | null][] = [
  ['t1', 'SUCCEEDED', 0.9, 50],
  ['t2', 'SUCCEEDED', 0.8, 20],
  ['t3', 'SUCCEEDED', 0.7, 30], // dominated by t2
  ['t4', 'SUCCEEDED', 0.95, 80],
  ['t5', 'RUNNING', 1, 1], // not finished: does not count
  ['t6', 'SUCCEEDED', 0.85, null], // no latency: counts for accuracy alone
  ['t7', 'EARLYSTOPPED', 0.6, 40], // dominated by t3, which t2 dominates
];

function values(objectives: readonly ObjectiveView[]): TrialObjectiveValues {
  return {
    names: TRIALS.map((t) => t[0]),
    conditions: TRIALS.map((t) => t[1]),
    assignments: TRIALS.map(() => []),
    values: objectives.map((o) => TRIALS.map((t) => (o === ACCURACY ? t[2] : t[3]))),
  };
}

describe('the Pareto front of an experiment', () => {
  it('ranks the SUCCEEDED and EARLYSTOPPED trials that report every objective', () => {
    const answer = paretoView([ACCURACY, LATENCY], values([ACCURACY, LATENCY]), [0.5, 100]);
    expect(answer.trials).toEqual([
      { name: 't1', rank: 0, values: [0.9, 50] },
      { name: 't2', rank: 0, values: [0.8, 20] },
      { name: 't3', rank: 1, values: [0.7, 30] },
      { name: 't4', rank: 0, values: [0.95, 80] },
      { name: 't7', rank: 2, values: [0.6, 40] },
    ]);
    expect(answer.front).toEqual(['t1', 't2', 't4']);
    expect(answer.reference).toEqual([0.5, 100]);
    expect(answer.referenceFrom).toBe('query');
    // The staircase from the reference (0.5, 100): 0.45 × 20 + 0.4 × 30 + 0.3 × 30.
    expect(answer.hypervolume).toBeCloseTo(30, 12);
  });

  it('takes the worst values plus 10% of each range as the reference point by default', () => {
    const answer = paretoView([ACCURACY, LATENCY], values([ACCURACY, LATENCY]));
    expect(answer.referenceFrom).toBe('default');
    // accuracy 0.6-0.95 (maximized: below the worst), latency 20-80.
    expect(answer.reference![0]).toBeCloseTo(0.6 - 0.035, 12);
    expect(answer.reference![1]).toBeCloseTo(86, 12);
  });

  it('of one objective: the best trial is the front, the hypervolume the length to the reference', () => {
    const answer = paretoView([ACCURACY], values([ACCURACY]), [0.5]);
    expect(answer.front).toEqual(['t4']);
    expect(answer.trials.map((t) => [t.name, t.rank])).toEqual([
      ['t1', 1],
      ['t2', 3],
      ['t3', 4],
      ['t4', 0],
      ['t6', 2],
      ['t7', 5],
    ]);
    expect(answer.hypervolume).toBeCloseTo(0.45, 12);
  });

  it('with no trial counted: no front, and a reference only when one is given', () => {
    const none = { names: ['t5'], conditions: ['RUNNING'], assignments: [[]], values: [[1], [1]] };
    expect(paretoView([ACCURACY, LATENCY], none)).toMatchObject({
      trials: [],
      front: [],
      reference: null,
      hypervolume: 0,
    });
    expect(paretoView([ACCURACY, LATENCY], none, [0, 9]).reference).toEqual([0, 9]);
  });
});
