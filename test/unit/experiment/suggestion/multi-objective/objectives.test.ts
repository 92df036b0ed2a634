// The `objectives` setting: every refusal names the setting, the value and what is allowed; the
// first objective is the experiment's; each trial's loss vector read from its observation.
import { describe, expect, it } from 'vitest';
import {
  readObjective,
  readTrials,
  toDimensions,
} from '../../../../../services/experiment/suggestion/katib-space.ts';
import {
  parseObjectives,
  resolveObjectives,
  scoreTrials,
} from '../../../../../services/experiment/suggestion/multi-objective/objectives.ts';
import { double, experiment, invalidArgumentMessage, trial } from '../fixtures.ts';

const ALLOWED =
  'allowed: a comma-separated list of metric:direction with direction maximize or minimize, e.g. accuracy:maximize,latency_ms:minimize';

const refusal = invalidArgumentMessage;

const accuracyFirst = {
  direction: 'MAXIMIZE' as const,
  metricName: 'accuracy',
  additionalMetricNames: ['latency_ms', 'memory_mb'],
};

describe('parseObjectives', () => {
  it('reads names and directions in either case, blanks around them ignored', () => {
    expect(parseObjectives('accuracy:maximize, latency_ms : MINIMIZE')).toEqual([
      { metricName: 'accuracy', direction: 'MAXIMIZE' },
      { metricName: 'latency_ms', direction: 'MINIMIZE' },
    ]);
    // A metric name may hold a colon: the direction is after the last one.
    expect(parseObjectives('val:acc:maximize')).toEqual([{ metricName: 'val:acc', direction: 'MAXIMIZE' }]);
  });

  it.each([
    ['', 'objectives "": no objective'],
    ['accuracy', 'objectives "accuracy": entry "accuracy" has no direction'],
    ['accuracy:maximize,', 'objectives "accuracy:maximize,": entry "" has no direction'],
    [':maximize', 'objectives ":maximize": entry ":maximize" has no metric name'],
    ['accuracy:up', 'objectives "accuracy:up": direction "up" of accuracy is neither maximize nor minimize'],
    [
      'accuracy:maximize,accuracy:minimize',
      'objectives "accuracy:maximize,accuracy:minimize": metric accuracy is listed twice',
    ],
  ])('refuses %j', (text, problem) => {
    expect(refusal(() => parseObjectives(text))).toBe(`${problem}; ${ALLOWED}`);
  });
});

describe('resolveObjectives', () => {
  it("without the setting, the experiment's objective alone", () => {
    expect(resolveObjectives(undefined, accuracyFirst)).toEqual([
      { metricName: 'accuracy', direction: 'MAXIMIZE' },
    ]);
  });

  it('accepts the experiment objective first and collected metrics after it', () => {
    expect(resolveObjectives('accuracy:maximize,latency_ms:minimize', accuracyFirst)).toHaveLength(2);
  });

  it.each([
    [
      'latency_ms:minimize,accuracy:maximize',
      `objectives "latency_ms:minimize,accuracy:maximize": the first objective must be the experiment's objective_metric_name "accuracy", got "latency_ms"`,
    ],
    [
      'accuracy:minimize',
      `objectives "accuracy:minimize": accuracy is to minimize but the experiment's objective type is MAXIMIZE; they must agree`,
    ],
    [
      'accuracy:maximize,loss:minimize',
      `objectives "accuracy:maximize,loss:minimize": loss must also be one of objective.additional_metric_names (now: latency_ms, memory_mb), or Katib's metrics collector never reports it`,
    ],
  ])('refuses %j for an accuracy-maximising experiment', (text, message) => {
    expect(refusal(() => resolveObjectives(text, accuracyFirst))).toBe(message);
  });

  it('says when the experiment collects no other metric', () => {
    expect(
      refusal(() =>
        resolveObjectives('accuracy:maximize,loss:minimize', { ...accuracyFirst, additionalMetricNames: [] }),
      ),
    ).toContain('(now: none)');
  });
});

describe('scoreTrials', () => {
  it('one loss per objective, maximised ones negated; incomplete trials left out', () => {
    const exp = experiment({ algorithm: 'nsga2', parameters: [double('x', '0', '1')] });
    const spec = exp.spec!;
    spec.objective!.additional_metric_names = ['latency_ms'];
    const dimensions = toDimensions(spec.parameter_specs!.parameters);
    const objective = readObjective(spec);
    const objectives = resolveObjectives('accuracy:maximize,latency_ms:minimize', objective);
    const trials = readTrials(
      [
        trial('a', { x: '0.1' }, 'SUCCEEDED', [
          ['accuracy', '0.5'],
          ['latency_ms', '30'],
          ['latency_ms', '20'],
        ]),
        trial('b', { x: '0.2' }, 'SUCCEEDED', { accuracy: '0.7' }), // no latency: cannot be ranked
        trial('c', { x: '0.3' }, 'RUNNING', { accuracy: '0.9', latency_ms: '1' }),
        trial('d', { x: '0.4' }, 'EARLYSTOPPED', { accuracy: '0.6', latency_ms: 'nan' }),
        trial('e', { x: '0.5' }, 'EARLYSTOPPED', { accuracy: '0.8', latency_ms: '1e1' }),
      ],
      dimensions,
      objective,
    );
    expect(scoreTrials(trials.records, objectives)).toEqual([
      { index: 0, point: [0.1], losses: [-0.5, 20] },
      { index: 4, point: [0.5], losses: [-0.8, 10] },
    ]);
  });
});
