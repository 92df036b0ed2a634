// Parameter importance as the read model serves it: on a two-objective problem where each objective
// depends on one parameter and two parameters do nothing, each objective ranks its own parameter
// first and the inert ones last; the forests learn from a bounded sample; the answer is kept until
// the trials change.
import { describe, expect, it } from 'vitest';
import type {
  ObjectiveView,
  SearchParameterView,
  TrialObjectiveValues,
} from '../../../../../services/experiment/common/read-model.ts';
import { createObjectiveAnalysis } from '../../../../../services/experiment/suggestion/objective-views/analysis.ts';
import {
  boundedSample,
  IMPORTANCE_MAX_TRIALS,
  importanceRecords,
  importanceView,
} from '../../../../../services/experiment/suggestion/objective-views/importance.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';

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
const PARAMETERS: SearchParameterView[] = [
  space('lr', 'DOUBLE', { min: '0.0001', max: '0.1', distribution: 'LOG_UNIFORM' }),
  space('layers', 'INT', { min: '1', max: '8' }),
  space('dropout', 'DOUBLE', { min: '0', max: '0.5' }),
  space('optimizer', 'CATEGORICAL', { list: ['sgd', 'adam'] }),
];

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
    const records = importanceRecords(PARAMETERS, OBJECTIVES, trials(300));
    const answer = importanceView(PARAMETERS, OBJECTIVES, records);
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
    const records = importanceRecords(PARAMETERS, OBJECTIVES, trials(10_000, 2));
    const answer = importanceView(PARAMETERS, OBJECTIVES, records);
    expect(answer).toMatchObject({ trials: 9_000, fittedOn: IMPORTANCE_MAX_TRIALS });
    expect(ranking(answer.objectives[0]!.importances).slice(2).sort()).toEqual(['dropout', 'optimizer']);
    expect(ranking(answer.objectives[1]!.importances).slice(2).sort()).toEqual(['dropout', 'optimizer']);
  });

  it('has no importance below two trials or without a search space', () => {
    const one = importanceView(PARAMETERS, OBJECTIVES, importanceRecords(PARAMETERS, OBJECTIVES, trials(1)));
    expect(one.objectives.map((o) => o.importances)).toEqual([null, null]);
    expect(importanceRecords([], OBJECTIVES, trials(50))).toEqual([]);
    expect(importanceView([], OBJECTIVES, [])).toMatchObject({ trials: 0, fittedOn: 0 });
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

describe('the importance kept per experiment', () => {
  it('grows the forests again only when the counted trials changed; keeps a bounded number of experiments', () => {
    let computed = 0;
    const analysis = createObjectiveAnalysis({
      maxExperiments: 2,
      compute: (_parameters, _objectives, records) => {
        computed++;
        return { trials: records.length, fittedOn: records.length, objectives: [] };
      },
    });
    const ask = (experiment: string, values: TrialObjectiveValues) =>
      analysis.importance(experiment, PARAMETERS, OBJECTIVES, values);
    ask('a', trials(40));
    ask('a', trials(40));
    expect(computed).toBe(1);
    // A running trial's values change nothing it learns from.
    const running = trials(40);
    running.values[0]![9] = 0.123;
    ask('a', running);
    expect(computed).toBe(1);
    // A counted trial's value changed: grown again.
    const changed = trials(40);
    changed.values[1]![0] = 999;
    ask('a', changed);
    expect(computed).toBe(2);
    // Two other experiments push the first out.
    ask('b', changed);
    ask('c', changed);
    expect(computed).toBe(4);
    ask('a', changed);
    expect(computed).toBe(5);
  });
});
