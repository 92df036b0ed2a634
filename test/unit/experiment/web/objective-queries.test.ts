// The objective endpoints' query: ?reference read as one number per objective, and an experiment
// without a direction refused.
import { describe, expect, it } from 'vitest';
import type { ExperimentView, ObjectiveView } from '../../../../services/experiment/common/read-model.ts';
import { objectivesOf, referenceOf } from '../../../../services/experiment/web/objective-queries.ts';

const ACCURACY: ObjectiveView = { metricName: 'accuracy', type: 'MAXIMIZE' };
const LATENCY: ObjectiveView = { metricName: 'latency_ms', type: 'MINIMIZE' };

describe('?reference and the objectives', () => {
  it('reads one number per objective; anything else is refused naming the parameter and the objectives', () => {
    expect(referenceOf(undefined, [ACCURACY])).toBeUndefined();
    expect(referenceOf('0.5, 1e2', [ACCURACY, LATENCY])).toEqual([0.5, 100]);
    expect(() => referenceOf('0.5', [ACCURACY, LATENCY])).toThrow(
      'query parameter reference: "0.5" is not 2 comma-separated numbers (accuracy, latency_ms)',
    );
    expect(() => referenceOf('0.5,x', [ACCURACY, LATENCY])).toThrow('is not 2 comma-separated numbers');
    expect(() => referenceOf('', [ACCURACY])).toThrow(
      'query parameter reference: "" is not 1 comma-separated number (accuracy)',
    );
  });

  it('refuses an experiment whose objective has no direction yet (FAILED_PRECONDITION)', () => {
    const experiment = { name: 'e', objectives: [] } as unknown as ExperimentView;
    expect(() => objectivesOf(experiment)).toThrow(
      'experiment "e": no objective with a direction (MAXIMIZE or MINIMIZE) known yet',
    );
  });
});
