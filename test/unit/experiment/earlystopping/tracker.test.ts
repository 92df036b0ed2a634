import { describe, expect, it } from 'vitest';
import type { StoppingRule } from '../../../../services/experiment/earlystopping/medianstop.ts';
import {
  createTracker,
  type RulesIssued,
  type Tracker,
} from '../../../../services/experiment/earlystopping/tracker.ts';

/** The tracker, answering only the stops (no rung records with rules alone). */
const stopsOnly = (tracker: Tracker) => ({
  ...tracker,
  onReport: (...args: Parameters<Tracker['onReport']>) => tracker.onReport(...args).stops,
  onRules: (...args: Parameters<Tracker['onRules']>) => tracker.onRules(...args).stops,
});

const rule = (
  value: string,
  comparison: StoppingRule['comparison'] = 'LESS',
  startStep = 4,
): StoppingRule => ({
  name: 'accuracy',
  value,
  comparison,
  startStep,
});

const issued = (atMs: number, rules: StoppingRule[], trials: RulesIssued['trials'] = []): RulesIssued => ({
  experimentName: 'exp',
  issuedAtMs: atMs,
  objectiveMetric: 'accuracy',
  objectiveType: 'MAXIMIZE',
  rules,
  trials,
});

let events = 0;
const report = (trialName: string, atMs: number, ...values: string[]) => ({
  eventId: `e${events++}`,
  trialName,
  atMs,
  logs: values.map((value) => ({ metricName: 'accuracy', value })),
});

describe('early-stopping tracker (Katib collector semantics)', () => {
  it('stops at the start_step-th value when the best so far breaks the rule, and only then', () => {
    const tracker = stopsOnly(createTracker({ maxSamplesPerMetric: 100 }));
    expect(tracker.onRules(issued(10, [rule('0.7')]))).toEqual([]);
    expect(tracker.onReport(report('exp-worse', 20, '0.3', '0.4', '0.5'))).toEqual([]);
    const [decision] = tracker.onReport(report('exp-worse', 30, '0.6'));
    expect(decision).toMatchObject({ trialName: 'exp-worse', experimentName: 'exp' });
    expect(decision!.verdict.evidence).toBe('best accuracy 0.6 at step 4 is less than 0.7');
  });

  it('does not stop a trial whose best so far holds, even if its latest value is bad (strict comparison)', () => {
    const tracker = stopsOnly(createTracker({ maxSamplesPerMetric: 100 }));
    tracker.onRules(issued(10, [rule('0.7')]));
    expect(tracker.onReport(report('exp-better', 20, '0.9', '0.2', '0.1', '0.1'))).toEqual([]);
    expect(tracker.onReport(report('exp-equal', 20, '0.7', '0.7', '0.7', '0.7'))).toEqual([]);
    // Never judged again after its step.
    expect(tracker.onReport(report('exp-better', 30, '0.1', '0.1'))).toEqual([]);
  });

  it('judges with rules that arrive after the values, when the values were reported after they were issued', () => {
    const tracker = stopsOnly(createTracker({ maxSamplesPerMetric: 100 }));
    tracker.onReport(report('exp-late', 20, '0.1', '0.1', '0.1', '0.1'));
    tracker.onReport(report('exp-early', 5, '0.1', '0.1', '0.1', '0.1'));
    const decisions = tracker.onRules(issued(10, [rule('0.7')]));
    expect(decisions.map((d) => d.trialName)).toEqual(['exp-late']);
  });

  it('uses the set in force when the step was reached, not an older or a newer one', () => {
    const tracker = stopsOnly(createTracker({ maxSamplesPerMetric: 100 }));
    tracker.onRules(issued(10, [rule('0.9')]));
    tracker.onRules(issued(20, [rule('0.2')]));
    // Step 4 reached at 25: only the 0.2 set judges, and 0.5 is not less than 0.2.
    expect(tracker.onReport(report('exp-a', 25, '0.5', '0.5', '0.5', '0.5'))).toEqual([]);
    // Step 4 reached at 15: the 0.9 set was in force.
    expect(tracker.onReport(report('exp-b', 15, '0.5', '0.5', '0.5', '0.5'))).toHaveLength(1);
  });

  it('requires every rule of the set (AND), each at its own step', () => {
    const tracker = stopsOnly(createTracker({ maxSamplesPerMetric: 100 }));
    const lossRule: StoppingRule = { name: 'loss', value: '1', comparison: 'GREATER', startStep: 2 };
    tracker.onRules(issued(0, [rule('0.7', 'LESS', 1), lossRule]));
    expect(tracker.onReport(report('exp-t', 1, '0.5'))).toEqual([]);
    const losses = {
      eventId: 'loss-1',
      trialName: 'exp-t',
      atMs: 2,
      logs: [
        { metricName: 'loss', value: '3' },
        { metricName: 'loss', value: '2' },
      ],
    };
    expect(tracker.onReport(losses)).toHaveLength(1);
  });

  it('never stops a finished trial, one listed as succeeded, or a trial of another experiment', () => {
    const tracker = stopsOnly(createTracker({ maxSamplesPerMetric: 100 }));
    tracker.onRules(issued(0, [rule('0.7')], [{ name: 'exp-done', condition: 'SUCCEEDED' }]));
    tracker.onStatus('exp-stopped', 'EARLYSTOPPED');
    expect(tracker.onReport(report('exp-done', 1, '0', '0', '0', '0'))).toEqual([]);
    expect(tracker.onReport(report('exp-stopped', 1, '0', '0', '0', '0'))).toEqual([]);
    expect(tracker.onReport(report('other-1', 1, '0', '0', '0', '0'))).toEqual([]);
    expect(tracker.isFinished('exp-done')).toBe(true);
  });

  it('maps a trial to its experiment by listing first, else by the longest name prefix', () => {
    const tracker = stopsOnly(createTracker({ maxSamplesPerMetric: 100 }));
    tracker.onRules(issued(0, [rule('0.7')], [{ name: 'odd-name', condition: 'RUNNING' }]));
    tracker.onRules({ ...issued(0, []), experimentName: 'exp-long' });
    expect(tracker.onReport(report('odd-name', 1, '0', '0', '0', '0'))).toHaveLength(1);
    // `exp-long-x` belongs to exp-long, which has no rules.
    expect(tracker.onReport(report('exp-long-x', 1, '0', '0', '0', '0'))).toEqual([]);
  });

  it('applies a redelivered report once, forgets deleted logs, and skips values that are not numbers', () => {
    const tracker = stopsOnly(createTracker({ maxSamplesPerMetric: 100 }));
    tracker.onRules(issued(0, [rule('0.7')]));
    const first = report('exp-r', 1, '0.1', 'unavailable', '0.1');
    tracker.onReport(first);
    expect(tracker.onReport(first)).toEqual([]); // would be the 4th value if counted twice
    tracker.onDeleted('exp-r');
    expect(tracker.onReport(report('exp-r', 2, '0.1', '0.1', '0.1'))).toEqual([]);
    expect(tracker.onReport(report('exp-r', 3, '0.1'))).toHaveLength(1);
  });
});
