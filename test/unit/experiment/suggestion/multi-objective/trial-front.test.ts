// The front of hand-made Katib trials: ranks, the non-dominated names, the hypervolume by hand.
import { describe, expect, it } from 'vitest';
import {
  readObjective,
  readTrials,
  toDimensions,
} from '../../../../../services/experiment/suggestion/katib-space.ts';
import { resolveObjectives } from '../../../../../services/experiment/suggestion/multi-objective/objectives.ts';
import { trialFront } from '../../../../../services/experiment/suggestion/multi-objective/trial-front.ts';
import { double, experiment, trial } from '../fixtures.ts';

function records() {
  const exp = experiment({ algorithm: 'nsga2', parameters: [double('x', '0', '1')], metric: 'accuracy' });
  exp.spec!.objective!.additional_metric_names = ['latency_ms'];
  const dimensions = toDimensions(exp.spec!.parameter_specs!.parameters);
  const objective = readObjective(exp.spec!);
  const done = (name: string, accuracy: string, latency: string) =>
    trial(name, { x: '0.5' }, 'SUCCEEDED', { accuracy, latency_ms: latency });
  const trials = [
    done('fast', '0.6', '10'), // front
    done('balanced', '0.8', '20'), // front
    done('accurate', '0.9', '40'), // front
    done('worse', '0.7', '30'), // dominated by balanced
    done('worst', '0.5', '50'), // dominated by all the above
    trial('running', { x: '0.1' }, 'RUNNING', { accuracy: '0.99', latency_ms: '1' }),
  ];
  return {
    records: readTrials(trials, dimensions, objective).records,
    objectives: resolveObjectives('accuracy:maximize,latency_ms:minimize', objective),
  };
}

describe('trialFront', () => {
  it('ranks every counted trial and names the front', () => {
    const { records: r, objectives } = records();
    const result = trialFront(r, objectives);
    expect(result.trials.map((t) => [t.name, t.rank])).toEqual([
      ['fast', 0],
      ['balanced', 0],
      ['accurate', 0],
      ['worse', 1],
      ['worst', 2],
    ]);
    expect(result.trials[1]!.values).toEqual([0.8, 20]);
    expect(result.front).toEqual(['fast', 'balanced', 'accurate']);
  });

  it('hypervolume against a given reference point, in the metrics’ own units', () => {
    const { records: r, objectives } = records();
    // Reference accuracy 0.5, latency 50: a staircase of strips from the most accurate trial,
    // 0.4·(50−40) + 0.3·(40−20) + 0.1·(20−10) = 4 + 6 + 1.
    const result = trialFront(r, objectives, [0.5, 50]);
    expect(result.reference).toEqual([0.5, 50]);
    expect(result.hypervolume).toBeCloseTo(11, 12);
  });

  it('by default the nadir plus 10% of each range, beyond the worst value', () => {
    const { records: r, objectives } = records();
    const result = trialFront(r, objectives);
    // Accuracy spans 0.5-0.9 (maximised: 0.5 − 0.04), latency 10-50 (50 + 4).
    expect(result.reference![0]).toBeCloseTo(0.46, 12);
    expect(result.reference![1]).toBeCloseTo(54, 12);
    expect(result.hypervolume).toBeGreaterThan(11);
  });

  it('nothing counted: an empty front; a reference point of the wrong size is refused', () => {
    const { objectives } = records();
    expect(trialFront([], objectives)).toEqual({ trials: [], front: [], reference: null, hypervolume: 0 });
    expect(() => trialFront([], objectives, [1])).toThrow(
      'the reference point has 1 values for 2 objectives',
    );
  });
});
