// Importance per objective from Katib trials: each objective ranks the parameter it depends on first.
import { describe, expect, it } from 'vitest';
import { importancesByObjective } from '../../../../../services/experiment/suggestion/importance/importance-by-objective.ts';
import {
  readObjective,
  readTrials,
  toDimensions,
} from '../../../../../services/experiment/suggestion/katib-space.ts';
import { resolveObjectives } from '../../../../../services/experiment/suggestion/multi-objective/objectives.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';
import { categorical, double, experiment, trial } from '../fixtures.ts';

const PARAMETERS = [double('x', '0', '1'), double('y', '0', '1'), categorical('unused', ['a', 'b'])];

function setUp(trialCount: number) {
  const exp = experiment({ algorithm: 'nsga2', parameters: PARAMETERS, metric: 'accuracy' });
  exp.spec!.objective!.additional_metric_names = ['latency_ms'];
  const dimensions = toDimensions(exp.spec!.parameter_specs!.parameters);
  const objective = readObjective(exp.spec!);
  const rng = createRng(8);
  const trials = Array.from({ length: trialCount }, (_, i) => {
    const x = rng.next();
    const y = rng.next();
    // accuracy depends on x alone, latency on y alone.
    return trial(`t${i}`, { x: String(x), y: String(y), unused: rng.next() < 0.5 ? 'a' : 'b' }, 'SUCCEEDED', {
      accuracy: String(x * x),
      latency_ms: String(10 + 50 * y),
    });
  });
  const records = readTrials(trials, dimensions, objective).records;
  const objectives = resolveObjectives('accuracy:maximize,latency_ms:minimize', objective);
  return { dimensions, records, objectives };
}

describe('importancesByObjective', () => {
  it('gives each objective its own ranking', () => {
    const { dimensions, records, objectives } = setUp(150);
    const [accuracy, latency] = importancesByObjective(dimensions, records, objectives);
    const top = (entry: typeof accuracy) =>
      [...entry!.importances!].sort((a, b) => b.importance - a.importance).map((p) => p.name);
    expect(accuracy!.metricName).toBe('accuracy');
    expect(accuracy!.trials).toBe(150);
    expect(top(accuracy)[0]).toBe('x');
    expect(top(latency)[0]).toBe('y');
    expect(top(accuracy)[2]).toBe('unused');
    expect(top(latency)[2]).toBe('unused');
  });

  it('has no importances with fewer than two trials that report every objective', () => {
    const { dimensions, records, objectives } = setUp(1);
    expect(importancesByObjective(dimensions, records, objectives)).toEqual([
      { metricName: 'accuracy', trials: 1, importances: null },
      { metricName: 'latency_ms', trials: 1, importances: null },
    ]);
  });
});
