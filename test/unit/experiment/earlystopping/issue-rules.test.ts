import { describe, expect, it } from 'vitest';
import { readAlgorithmSpec } from '../../../../services/experiment/earlystopping/algorithms.ts';
import { curvesNeeded, issueRules } from '../../../../services/experiment/earlystopping/issue-rules.ts';
import type { ObjectiveType } from '../../../../services/experiment/earlystopping/medianstop.ts';
import { bracketOf, bracketsFor } from '../../../../services/experiment/earlystopping/pruners/hyperband.ts';

const spec = (algorithmName: string, given: Record<string, string> = {}) =>
  readAlgorithmSpec({
    algorithmName,
    settings: Object.entries(given).map(([name, value]) => ({ name, value })),
  });

const text = (curves: number[][]) => curves.map((c) => c.map(String));

const issue = (
  algorithm: ReturnType<typeof spec>,
  {
    succeeded = [] as number[][],
    listed = new Map<string, number[]>(),
    objectiveType = 'MINIMIZE' as ObjectiveType,
  } = {},
) =>
  issueRules({
    spec: algorithm,
    objectiveMetric: 'loss',
    objectiveType,
    succeededTrials: succeeded.length,
    succeeded: text(succeeded),
    listed: new Map([...listed].map(([name, c]) => [name, c.map(String)])),
  });

const SUCCEEDED = [
  [4, 3, 2, 1],
  [5, 4, 3],
  [6, 5, 4, 3, 2],
];

describe('GetEarlyStoppingRules for each algorithm: the reference and the collector’s rule', () => {
  it('medianstop: unchanged (the median rule, no reference)', () => {
    expect(
      issue(spec('medianstop', { min_trials_required: '3', start_step: '2' }), { succeeded: SUCCEEDED }),
    ).toEqual({
      rules: [{ name: 'loss', value: '4.5', comparison: 'GREATER', startStep: 2 }],
      reference: { succeededTrials: 0, succeededMaxSteps: 0, steps: [] },
    });
  });

  it('percentile: the thresholds, and a rule at the first checkpoint once n_startup_trials succeeded', () => {
    const percentile = spec('percentile', { percentile: '50', n_startup_trials: '3', n_warmup_steps: '2' });
    const issued = issue(percentile, { succeeded: [...SUCCEEDED, []] });
    expect(issued.reference).toEqual({
      succeededTrials: 4,
      succeededMaxSteps: 5,
      steps: [
        { step: 2, value: 4 },
        { step: 3, value: 3 },
        { step: 4, value: 2 },
        { step: 5, value: 2 },
      ],
    });
    expect(issued.rules).toEqual([{ name: 'loss', value: '4.0', comparison: 'GREATER', startStep: 2 }]);
    expect(issue(percentile, { succeeded: SUCCEEDED.slice(0, 2) }).rules).toEqual([]);
    expect(issue(percentile, { succeeded: SUCCEEDED, objectiveType: 'MAXIMIZE' }).rules).toEqual([
      { name: 'loss', value: '4.0', comparison: 'LESS', startStep: 2 },
    ]);
  });

  it('wilcoxon: the best succeeded curve by its last value; no rule', () => {
    expect(issue(spec('wilcoxon'), { succeeded: SUCCEEDED })).toEqual({
      rules: [],
      reference: {
        succeededTrials: 3,
        succeededMaxSteps: 5,
        steps: [4, 3, 2, 1].map((value, i) => ({ step: i + 1, value })),
      },
    });
    expect(
      issue(spec('wilcoxon'), { succeeded: SUCCEEDED, objectiveType: 'MAXIMIZE' }).reference.steps,
    ).toHaveLength(3);
  });

  it('successivehalving: the cut-off of rung 0 from every listed trial, when min_resource is given', () => {
    const sh = spec('successivehalving', { min_resource: '2', reduction_factor: '2' });
    expect(curvesNeeded(sh, [{ name: 'a', condition: 'RUNNING' }])).toEqual({
      succeededTrials: 0,
      succeeded: [],
      listed: ['a'],
    });
    // Values at step 2: 1, 2, 3 (the short trial has none): a new trial is the 4th, index 4/2 - 1 = 1.
    const listed = new Map([
      ['exp-a', [9, 1]],
      ['exp-b', [9, 2, 0]],
      ['exp-c', [9, 3]],
      ['exp-d', [9]],
    ]);
    expect(issue(sh, { listed }).rules).toEqual([
      { name: 'loss', value: '2.0', comparison: 'GREATER', startStep: 2 },
    ]);
    expect(issue(sh, { listed: new Map() }).rules).toEqual([]);
    const auto = spec('successivehalving');
    expect(curvesNeeded(auto, [{ name: 'a', condition: 'RUNNING' }]).listed).toEqual([]);
    expect(issue(auto, { listed, succeeded: SUCCEEDED })).toEqual({
      rules: [],
      reference: { succeededTrials: 3, succeededMaxSteps: 5, steps: [] },
    });
  });

  it('hyperband: the last bracket’s first rung, with the most lenient cut-off of all brackets', () => {
    const hb = spec('hyperband', { min_resource: '1', max_resource: '4', reduction_factor: '2' });
    const brackets = bracketsFor(1, 4, 2);
    expect(brackets.count).toBe(3);
    // Two trials of each bracket at step 4 (the last bracket's first rung).
    const names: string[][] = [[], [], []];
    for (let i = 0; names.some((n) => n.length < 2); i++) {
      const name = `exp-${i}`;
      const bracket = names[bracketOf(name, brackets)]!;
      if (bracket.length < 2) bracket.push(name);
    }
    const listed = new Map(names.flatMap((pair, b) => pair.map((name, j) => [name, [9, 9, 9, b * 10 + j]])));
    // Cut-offs per bracket (index 0 of 3 values, reduction 2): 0, 10, 20; the most lenient is 20.
    expect(issue(hb, { listed }).rules).toEqual([
      { name: 'loss', value: '20.0', comparison: 'GREATER', startStep: 4 },
    ]);
    listed.delete(names[2]![0]!);
    listed.delete(names[2]![1]!);
    expect(issue(hb, { listed }).rules).toEqual([]);
  });

  it('reads the succeeded curves only for the pruners that need them, and always counts the succeeded trials', () => {
    const trials = [
      { name: 'a', condition: 'SUCCEEDED' },
      { name: 'b', condition: 'RUNNING' },
    ];
    const needs = (algorithm: string, given: Record<string, string> = {}) =>
      curvesNeeded(spec(algorithm, given), trials);
    expect(needs('medianstop')).toEqual({ succeededTrials: 1, succeeded: ['a'], listed: [] });
    expect(needs('percentile', { percentile: '5' }).succeeded).toEqual(['a']);
    expect(needs('wilcoxon').succeeded).toEqual(['a']);
    expect(needs('successivehalving').succeeded).toEqual(['a']);
    expect(needs('hyperband').succeeded).toEqual(['a']);
    expect(needs('threshold', { upper: '1' })).toEqual({ succeededTrials: 1, succeeded: [], listed: [] });
    expect(needs('patient', { patience: '1' }).succeeded).toEqual([]);
    expect(needs('patient', { patience: '1', wrapped: 'wilcoxon' }).succeeded).toEqual(['a']);
    expect(needs('successivehalving', { min_resource: '3' })).toEqual({
      succeededTrials: 1,
      succeeded: [],
      listed: ['a', 'b'],
    });
  });

  it('threshold: the bound on the bad side at the first checkpoint; patient: no rule', () => {
    expect(issue(spec('threshold', { lower: '0', upper: '5', n_warmup_steps: '3' })).rules).toEqual([
      { name: 'loss', value: '5.0', comparison: 'GREATER', startStep: 3 },
    ]);
    expect(
      issue(spec('threshold', { lower: '0', interval_steps: '2' }), { objectiveType: 'MAXIMIZE' }).rules,
    ).toEqual([{ name: 'loss', value: '0.0', comparison: 'LESS', startStep: 2 }]);
    expect(issue(spec('threshold', { lower: '0' })).rules).toEqual([]);
    expect(issue(spec('patient', { patience: '1', wrapped: 'threshold', upper: '1' })).rules).toEqual([]);
    expect(
      issue(
        spec('patient', { patience: '1', wrapped: 'percentile', percentile: '50', n_startup_trials: '1' }),
        {
          succeeded: SUCCEEDED,
        },
      ).reference.steps[0],
    ).toEqual({ step: 1, value: 5 });
  });
});
