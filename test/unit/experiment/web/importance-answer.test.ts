// Parameter importance as the read model serves it: on a two-objective problem where each objective
// depends on one parameter and two parameters do nothing, each objective ranks its own parameter
// first and the inert ones last; the forests learn from a bounded sample; the answer is kept until
// the trials change.
import { describe, expect, it } from 'vitest';
import type {
  ExperimentView,
  ObjectiveView,
  SearchParameterView,
  TrialObjectiveValues,
} from '../../../../services/experiment/common/ports.ts';
import { createRng } from '../../../../services/experiment/suggestion/rng.ts';
import {
  boundedSample,
  IMPORTANCE_MAX_TRIALS,
  importanceAnswer,
  importanceRecords,
} from '../../../../services/experiment/web/importance-answer.ts';
import { createImportanceCache } from '../../../../services/experiment/web/importance-cache.ts';

const OBJECTIVES: ObjectiveView[] = [
  { metricName: 'accuracy', type: 'MAXIMIZE' },
  { metricName: 'latency_ms', type: 'MINIMIZE' },
];
const space = (
  name: string,
  parameterType: string,
  more: Partial<SearchParameterView>,
): SearchParameterView => ({
  name,
  parameterType,
  min: '',
  max: '',
  step: '',
  list: [],
  distribution: '',
  ...more,
});
const EXPERIMENT = {
  name: 'mo',
  objectives: OBJECTIVES,
  parameters: [
    space('lr', 'DOUBLE', { min: '0.0001', max: '0.1', distribution: 'LOG_UNIFORM' }),
    space('layers', 'INT', { min: '1', max: '8' }),
    space('dropout', 'DOUBLE', { min: '0', max: '0.5' }),
    space('optimizer', 'CATEGORICAL', { list: ['sgd', 'adam'] }),
  ],
} as unknown as ExperimentView;

/** accuracy from lr alone (on its log scale), latency from layers alone; dropout and optimizer inert. */
function trials(n: number, seed = 1): TrialObjectiveValues {
  const rng = createRng(seed);
  const rows = Array.from({ length: n }, (_, i) => {
    const lr = 10 ** (-4 + 3 * rng.next());
    const layers = 1 + rng.int(8);
    return {
      name: `t${i}`,
      assignments: [
        { name: 'lr', value: String(lr) },
        { name: 'layers', value: String(layers) },
        { name: 'dropout', value: String(0.5 * rng.next()) },
        { name: 'optimizer', value: rng.next() < 0.5 ? 'sgd' : 'adam' },
      ],
      accuracy: 1 + 0.1 * Math.log10(lr),
      latency: 10 * layers,
    };
  });
  return {
    names: rows.map((r) => r.name),
    conditions: rows.map((_, i) => (i % 10 === 9 ? 'RUNNING' : 'SUCCEEDED')),
    assignments: rows.map((r) => r.assignments),
    values: [rows.map((r) => r.accuracy), rows.map((r) => r.latency)],
  };
}

const ranking = (importances: readonly { parameter: string; importance: number }[] | null) =>
  [...importances!].sort((a, b) => b.importance - a.importance).map((p) => p.parameter);

describe('importance on the read model', () => {
  it('ranks each objective’s own parameter first and the inert ones last', () => {
    const records = importanceRecords(EXPERIMENT, OBJECTIVES, trials(300));
    const answer = importanceAnswer(EXPERIMENT, OBJECTIVES, records);
    // The RUNNING tenth does not count.
    expect(answer).toMatchObject({ trials: 270, fittedOn: 270 });
    const [accuracy, latency] = answer.objectives;
    expect(accuracy).toMatchObject({ metricName: 'accuracy', type: 'MAXIMIZE' });
    expect(ranking(accuracy!.importances).slice(0, 1)).toEqual(['lr']);
    expect(ranking(latency!.importances).slice(0, 1)).toEqual(['layers']);
    for (const objective of answer.objectives) {
      const share = Object.fromEntries(objective.importances!.map((p) => [p.parameter, p.importance]));
      expect(share.dropout! + share.optimizer!).toBeLessThan(0.05);
      expect(objective.importances!.reduce((sum, p) => sum + p.importance, 0)).toBeCloseTo(1, 12);
    }
  });

  it(`learns from at most ${IMPORTANCE_MAX_TRIALS} of 10,000 trials, and still ranks the inert parameters last`, () => {
    const records = importanceRecords(EXPERIMENT, OBJECTIVES, trials(10_000, 2));
    const answer = importanceAnswer(EXPERIMENT, OBJECTIVES, records);
    expect(answer).toMatchObject({ trials: 9_000, fittedOn: IMPORTANCE_MAX_TRIALS });
    expect(ranking(answer.objectives[0]!.importances).slice(2).sort()).toEqual(['dropout', 'optimizer']);
    expect(ranking(answer.objectives[1]!.importances).slice(2).sort()).toEqual(['dropout', 'optimizer']);
  });

  it('has no importance below two trials or without a search space', () => {
    const one = importanceAnswer(
      EXPERIMENT,
      OBJECTIVES,
      importanceRecords(EXPERIMENT, OBJECTIVES, trials(1)),
    );
    expect(one.objectives.map((o) => o.importances)).toEqual([null, null]);
    const spaceless = { ...EXPERIMENT, parameters: [] };
    expect(importanceRecords(spaceless, OBJECTIVES, trials(50))).toEqual([]);
    expect(importanceAnswer(spaceless, OBJECTIVES, [])).toMatchObject({ trials: 0, fittedOn: 0 });
  });

  it('draws the bounded sample without replacement, in the trials’ order, the same each time', () => {
    const items = Array.from({ length: 1_000 }, (_, i) => i);
    const sample = boundedSample(items, 100);
    expect(sample).toHaveLength(100);
    expect(new Set(sample).size).toBe(100);
    expect([...sample].sort((a, b) => a - b)).toEqual(sample);
    expect(boundedSample(items, 100)).toEqual(sample);
    expect(boundedSample(items.slice(0, 50), 100)).toEqual(items.slice(0, 50));
  });
});

describe('the importance cache', () => {
  it('grows the forests again only when the trials changed; keeps a bounded number of experiments', () => {
    let computed = 0;
    const cache = createImportanceCache({
      maxExperiments: 2,
      compute: (_experiment, _objectives, records) => {
        computed++;
        return { trials: records.length, fittedOn: records.length, objectives: [] };
      },
    });
    const records = importanceRecords(EXPERIMENT, OBJECTIVES, trials(40));
    cache.answer(EXPERIMENT, OBJECTIVES, records);
    cache.answer(EXPERIMENT, OBJECTIVES, importanceRecords(EXPERIMENT, OBJECTIVES, trials(40)));
    expect(computed).toBe(1);
    // A value changed: computed again.
    const changed = trials(40);
    changed.values[1]![0] = 999;
    cache.answer(EXPERIMENT, OBJECTIVES, importanceRecords(EXPERIMENT, OBJECTIVES, changed));
    expect(computed).toBe(2);
    // Two other experiments push the first out.
    cache.answer({ ...EXPERIMENT, name: 'b' }, OBJECTIVES, records);
    cache.answer({ ...EXPERIMENT, name: 'c' }, OBJECTIVES, records);
    expect(computed).toBe(4);
    cache.answer(EXPERIMENT, OBJECTIVES, importanceRecords(EXPERIMENT, OBJECTIVES, changed));
    expect(computed).toBe(5);
  });
});
