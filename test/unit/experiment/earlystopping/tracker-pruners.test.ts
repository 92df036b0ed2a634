import { describe, expect, it } from 'vitest';
import { readAlgorithmSpec } from '../../../../services/experiment/earlystopping/algorithms.ts';
import type { PrunerSpec } from '../../../../services/experiment/earlystopping/pruners/pruner.ts';
import type { Reference } from '../../../../services/experiment/earlystopping/pruners/types.ts';
import {
  createTracker,
  type RecordedRung,
  type RulesIssued,
} from '../../../../services/experiment/earlystopping/tracker.ts';

const pruner = (algorithmName: string, given: Record<string, string>) =>
  readAlgorithmSpec({
    algorithmName,
    settings: Object.entries(given).map(([name, value]) => ({ name, value })),
  }) as PrunerSpec;

const issued = (
  atMs: number,
  spec: PrunerSpec,
  reference: Partial<Reference> = {},
  objectiveType: RulesIssued['objectiveType'] = 'MINIMIZE',
): RulesIssued => ({
  experimentName: 'exp',
  issuedAtMs: atMs,
  objectiveMetric: 'loss',
  objectiveType,
  // A pruner's rules are for Katib's collector: the judge must not apply them itself.
  rules: [{ name: 'loss', value: '-1000', comparison: 'GREATER', startStep: 1 }],
  trials: [],
  pruner: spec,
  reference: { succeededTrials: 0, succeededMaxSteps: 0, steps: [], ...reference },
});

let events = 0;
const report = (trialName: string, atMs: number, values: string[], metricName = 'loss') => ({
  eventId: `e${events++}`,
  trialName,
  atMs,
  logs: values.map((value) => ({ metricName, value })),
});

const SH = pruner('successivehalving', { min_resource: '2', reduction_factor: '2' });

describe('the tracker runs the experiment’s pruner step by step', () => {
  it('successivehalving: promotes the first trial at rung 0, stops a worse one once, shares rung records', () => {
    const tracker = createTracker({ maxSamplesPerMetric: 100 });
    expect(tracker.onRules(issued(10, SH))).toEqual({ stops: [], records: [] });
    const good = tracker.onReport(report('exp-good', 20, ['3', '1']));
    expect(good).toEqual({
      stops: [],
      records: [
        {
          experimentName: 'exp',
          algorithm: 'successivehalving',
          trialName: 'exp-good',
          bracket: 0,
          rung: 0,
          step: 2,
          value: 1,
          promoted: true,
        },
      ],
    });
    expect(tracker.onReport(report('exp-bad', 21, ['0.5'])).stops).toEqual([]);
    const bad = tracker.onReport(report('exp-bad', 22, ['2']));
    expect(bad.stops).toEqual([
      {
        trialName: 'exp-bad',
        experimentName: 'exp',
        verdict: {
          algorithm: 'successivehalving',
          evidence:
            'value 2 at step 2 (rung 0, from step 2) is not in the top 1/2 of the 2 values recorded at the rung (cut-off 1)',
        },
      },
    ]);
    expect(bad.records).toMatchObject([{ trialName: 'exp-bad', rung: 0, value: 2, promoted: false }]);
    // Its own records come back from the topic: nothing new.
    for (const record of [...good.records, ...bad.records])
      expect(tracker.onRungRecorded(record).records).toEqual([]);
  });

  it('after a restart, a recorded rung is not judged again, even against better trials recorded since', () => {
    const first = createTracker({ maxSamplesPerMetric: 100 });
    first.onRules(issued(10, SH));
    const records: RecordedRung[] = [];
    records.push(...first.onReport(report('exp-a', 20, ['5', '5'])).records);
    records.push(...first.onReport(report('exp-b', 21, ['1', '1'])).records);
    records.push(...first.onReport(report('exp-c', 22, ['0', '0'])).records);
    expect(records.map((r) => [r.trialName, r.promoted])).toEqual([
      ['exp-a', true],
      ['exp-b', true],
      ['exp-c', true],
    ]);
    // A new judge reads the rules topic (rules, records), then the observations again.
    const again = createTracker({ maxSamplesPerMetric: 100 });
    again.onRules(issued(10, SH));
    for (const record of records) again.onRungRecorded(record);
    expect(again.onReport(report('exp-a', 20, ['5', '5']))).toEqual({ stops: [], records: [] });
    // exp-a's next rung (step 4) is judged as usual: no one else there yet.
    expect(again.onReport(report('exp-a', 30, ['5', '5'])).records).toMatchObject([
      { rung: 1, promoted: true },
    ]);
  });

  it('a refusal recorded by another judge stops a running trial here', () => {
    const tracker = createTracker({ maxSamplesPerMetric: 100 });
    tracker.onRules(issued(10, SH));
    tracker.onReport(report('exp-x', 20, ['1']));
    const refusal = {
      experimentName: 'exp',
      algorithm: 'successivehalving',
      trialName: 'exp-x',
      bracket: 0,
      rung: 0,
      step: 2,
      value: 7,
      promoted: false,
    };
    expect(tracker.onRungRecorded({ ...refusal, trialName: 'exp-y' }).stops).toEqual([]);
    expect(tracker.onRungRecorded({ ...refusal, promoted: true, trialName: 'exp-z' }).stops).toEqual([]);
    expect(tracker.onRungRecorded(refusal).stops).toEqual([
      {
        trialName: 'exp-x',
        experimentName: 'exp',
        verdict: { algorithm: 'successivehalving', evidence: 'value 7 at step 2 (rung 0) was not promoted' },
      },
    ]);
  });

  it('never stops a trial whose objective metric never reports (other metrics, or values that are not numbers)', () => {
    const tracker = createTracker({ maxSamplesPerMetric: 100 });
    tracker.onRules(issued(10, pruner('threshold', { upper: '1' })));
    expect(tracker.onReport(report('exp-quiet', 20, ['9', '9'], 'accuracy')).stops).toEqual([]);
    expect(tracker.onReport(report('exp-quiet', 21, ['unavailable', 'nan'])).stops).toEqual([]);
    expect(tracker.onReport(report('exp-quiet', 22, ['9'])).stops).toHaveLength(1);
  });

  it('judges a value by the pruner in force when it was reported; a later set judges what came after it', () => {
    const tracker = createTracker({ maxSamplesPerMetric: 100 });
    tracker.onRules(issued(10, pruner('threshold', { upper: '1' })));
    tracker.onRules(issued(30, pruner('threshold', { upper: '5' })));
    expect(tracker.onReport(report('exp-a', 5, ['9'])).stops).toEqual([]); // before any set
    expect(tracker.onReport(report('exp-b', 35, ['3'])).stops).toEqual([]); // upper 5
    expect(tracker.onReport(report('exp-c', 20, ['3'])).stops).toHaveLength(1); // upper 1
    // A set issued at 40 arrives after a value reported at 45: that value is judged by it.
    tracker.onReport(report('exp-d', 45, ['3']));
    expect(
      tracker.onRules(issued(40, pruner('threshold', { upper: '2' }))).stops.map((s) => s.trialName),
    ).toEqual(['exp-d']);
  });

  it('percentile, MAXIMIZE: stops below the threshold at the step, once n_startup_trials succeeded', () => {
    const tracker = createTracker({ maxSamplesPerMetric: 100 });
    const spec = pruner('percentile', { percentile: '50', n_startup_trials: '2' });
    tracker.onRules(issued(10, spec, { succeededTrials: 1, steps: [{ step: 2, value: 0.8 }] }, 'MAXIMIZE'));
    expect(tracker.onReport(report('exp-a', 20, ['0.5', '0.7'])).stops).toEqual([]);
    tracker.onRules(issued(30, spec, { succeededTrials: 2, steps: [{ step: 2, value: 0.8 }] }, 'MAXIMIZE'));
    expect(tracker.onReport(report('exp-b', 40, ['0.5', '0.79'])).stops).toHaveLength(1);
    expect(tracker.onReport(report('exp-c', 40, ['0.9', '0.1'])).stops).toEqual([]);
  });

  it('min_resource auto: from the first rules with a succeeded trial, for values reported after them', () => {
    const tracker = createTracker({ maxSamplesPerMetric: 100 });
    const auto = pruner('successivehalving', { reduction_factor: '2' });
    tracker.onRules(issued(10, auto));
    expect(tracker.onReport(report('exp-a', 20, ['1'])).records).toEqual([]);
    tracker.onRules(issued(30, auto, { succeededTrials: 1, succeededMaxSteps: 250 }));
    // A later set with a longer succeeded trial does not move min_resource (2 = 250 / 100).
    tracker.onRules(issued(50, auto, { succeededTrials: 2, succeededMaxSteps: 900 }));
    expect(tracker.onReport(report('exp-b', 60, ['1'])).records).toEqual([]);
    expect(tracker.onReport(report('exp-b', 61, ['1'])).records).toMatchObject([{ step: 2, rung: 0 }]);
  });

  it('hyperband: records carry the trial’s bracket', () => {
    const tracker = createTracker({ maxSamplesPerMetric: 100 });
    tracker.onRules(
      issued(10, pruner('hyperband', { min_resource: '1', max_resource: '9', reduction_factor: '3' })),
    );
    const records = tracker.onReport(
      report('exp-9', 20, ['1', '1', '1', '1', '1', '1', '1', '1', '1']),
    ).records;
    expect(records.length).toBeGreaterThan(0);
    expect(new Set(records.map((r) => r.bracket)).size).toBe(1);
  });
});
