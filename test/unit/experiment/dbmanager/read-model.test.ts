import { describe, expect, it } from 'vitest';
import { readModelChanges, SuggestionsFold } from '../../../../services/experiment/dbmanager/read-model.ts';

const at = Date.UTC(2026, 0, 1);

describe('readModelChanges', () => {
  it('SuggestionsIssued: the experiment, and each named trial of the request with its parameters and condition', () => {
    const changes = readModelChanges({
      eventType: 'SuggestionsIssued',
      payload: {
        event_id: 'e1',
        occurred_at: at,
        experiment_name: 'exp',
        algorithm_name: 'tpe',
        objective_metric: 'accuracy',
        objective_type: 'MAXIMIZE',
        current_request_number: 1,
        total_request_number: 2,
        trial_count: 2,
        completed_trial_count: 1,
        suggestions: [{ trial_name: '', assignments: [{ name: 'lr', value: '0.1' }], labels: {} }],
        algorithm_settings: [],
        objectives: [],
        parameters: [],
        trials: [
          { name: 'exp-a', assignments: [{ name: 'lr', value: '0.2' }], condition: 'SUCCEEDED' },
          { name: 'exp-b', assignments: [], condition: '' },
          { name: '', assignments: [], condition: '' },
        ],
        trials_complete: true,
      },
    });
    expect(changes).toEqual([
      {
        kind: 'experiment',
        name: 'exp',
        algorithm: 'tpe',
        objectiveMetric: 'accuracy',
        objectiveType: 'MAXIMIZE',
        atMs: at,
      },
      {
        kind: 'trial',
        name: 'exp-a',
        experiment: 'exp',
        assignments: [{ name: 'lr', value: '0.2' }],
        listedCondition: 'SUCCEEDED',
        atMs: at,
      },
      { kind: 'trial', name: 'exp-b', experiment: 'exp', assignments: [], atMs: at },
    ]);
  });

  it('SuggestionsIssued: a trial the reply names (PBT) is a trial of the experiment, after the listed ones', () => {
    const changes = readModelChanges({
      eventType: 'SuggestionsIssued',
      payload: {
        event_id: 'e5',
        occurred_at: at,
        experiment_name: 'exp',
        algorithm_name: 'pbt',
        objective_metric: 'accuracy',
        objective_type: 'MAXIMIZE',
        current_request_number: 1,
        total_request_number: 2,
        trial_count: 1,
        completed_trial_count: 1,
        suggestions: [{ trial_name: 'exp-next', assignments: [{ name: 'lr', value: '0.3' }], labels: {} }],
        algorithm_settings: [],
        objectives: [],
        parameters: [],
        trials: [{ name: 'exp-a', assignments: [], condition: 'SUCCEEDED' }],
        trials_complete: false,
      },
    });
    expect(changes.slice(1)).toEqual([
      {
        kind: 'trial',
        name: 'exp-a',
        experiment: 'exp',
        assignments: [],
        listedCondition: 'SUCCEEDED',
        atMs: at,
      },
      {
        kind: 'trial',
        name: 'exp-next',
        experiment: 'exp',
        assignments: [{ name: 'lr', value: '0.3' }],
        atMs: at,
      },
    ]);
  });

  it("SuggestionsIssued v4: the experiment's objectives and search space; none listed leaves them", () => {
    const event = (objectives: unknown[], parameters: unknown[]) =>
      readModelChanges({
        eventType: 'SuggestionsIssued',
        payload: {
          event_id: 'e6',
          occurred_at: at,
          experiment_name: 'exp',
          algorithm_name: 'nsga2',
          objective_metric: 'accuracy',
          objective_type: 'MAXIMIZE',
          current_request_number: 1,
          total_request_number: 1,
          trial_count: 0,
          completed_trial_count: 0,
          suggestions: [],
          algorithm_settings: [],
          trials: [],
          trials_complete: true,
          objectives,
          parameters,
        } as never,
      })[0];
    const lr = {
      name: 'lr',
      parameter_type: 'DOUBLE',
      min: '0.001',
      max: '0.1',
      step: '',
      list: [],
      distribution: 'LOG_UNIFORM',
    };
    expect(
      event(
        [
          { metric_name: 'accuracy', type: 'MAXIMIZE' },
          { metric_name: 'latency_ms', type: 'MINIMIZE' },
        ],
        [lr],
      ),
    ).toMatchObject({
      objectives: [
        { metricName: 'accuracy', type: 'MAXIMIZE' },
        { metricName: 'latency_ms', type: 'MINIMIZE' },
      ],
      parameters: [
        {
          name: 'lr',
          parameterType: 'DOUBLE',
          min: '0.001',
          max: '0.1',
          step: '',
          list: [],
          distribution: 'LOG_UNIFORM',
        },
      ],
    });
    const before = event([], []);
    expect(before).not.toHaveProperty('objectives');
    expect(before).not.toHaveProperty('parameters');
  });

  it('EarlyStoppingRulesIssued: the rules and objective, and the listed trials', () => {
    const changes = readModelChanges({
      eventType: 'EarlyStoppingRulesIssued',
      payload: {
        event_id: 'e2',
        occurred_at: new Date(at),
        experiment_name: 'exp',
        objective_metric: 'loss',
        objective_type: 'MINIMIZE',
        rules: [{ name: 'loss', value: '0.3', comparison: 'GREATER', start_step: 4 }],
        trials: [{ name: 'exp-a', condition: 'RUNNING' }],
        algorithm_name: 'medianstop',
        algorithm_settings: [],
        succeeded_trials: 3,
        succeeded_max_steps: 4,
        reference_steps: [],
      },
    });
    expect(changes).toEqual([
      {
        kind: 'experiment',
        name: 'exp',
        algorithm: '',
        objectiveMetric: 'loss',
        objectiveType: 'MINIMIZE',
        rules: [{ name: 'loss', value: '0.3', comparison: 'GREATER', startStep: 4 }],
        atMs: at,
      },
      { kind: 'trial', name: 'exp-a', experiment: 'exp', listedCondition: 'RUNNING', atMs: at },
    ]);
  });

  it("TrialsCreated: the trial controller's trials with their parameters; an event without experiment gives none", () => {
    const created = (experiment: string) =>
      readModelChanges({
        eventType: 'TrialsCreated',
        payload: {
          event_id: 'e4',
          occurred_at: at,
          experiment_name: experiment,
          generation: 1,
          total_request_number: 2,
          trials: [
            { name: 'exp-a', assignments: [{ name: 'lr', value: '0.2' }], labels: {} },
            { name: 'exp-b', assignments: [{ name: 'lr', value: '0.3' }], labels: { k: 'v' } },
          ],
          algorithm_settings: [],
        },
      });
    expect(created('exp')).toEqual([
      {
        kind: 'trial',
        name: 'exp-a',
        experiment: 'exp',
        assignments: [{ name: 'lr', value: '0.2' }],
        atMs: at,
      },
      {
        kind: 'trial',
        name: 'exp-b',
        experiment: 'exp',
        assignments: [{ name: 'lr', value: '0.3' }],
        atMs: at,
      },
    ]);
    expect(created('')).toEqual([]);
  });

  it('TrialStatusChanged: the trial and its experiment, not the status (kept by the observation store); observations change nothing here', () => {
    expect(
      readModelChanges({
        eventType: 'TrialStatusChanged',
        payload: {
          event_id: 'e3',
          occurred_at: at,
          trial_name: 'exp-a',
          experiment_name: '',
          condition: 'EARLYSTOPPED',
          reason: 'TrialEarlyStopped',
          message: 'm',
          source: 'SetTrialStatus',
        },
      }),
    ).toEqual([{ kind: 'trial', name: 'exp-a', experiment: '', atMs: at }]);
    expect(
      readModelChanges({
        eventType: 'ObservationLogReported',
        payload: { event_id: 'e4', occurred_at: at, trial_name: 'exp-a', metric_logs: [] },
      }),
    ).toEqual([]);
  });
});

describe('SuggestionsFold', () => {
  it("keeps each experiment's last complete event and every other, in the order read", () => {
    const fold = new SuggestionsFold<string>();
    const read: [string, boolean, string][] = [
      ['x', true, 'x1 complete'],
      ['x', false, 'x2 changes'],
      ['y', true, 'y1 complete'],
      ['x', true, 'x3 complete'],
      ['x', false, 'x4 changes'],
      // Another instance's complete event, written late: the changes listed before it still count.
      ['x', true, 'x5 complete, late'],
      ['y', false, 'y2 changes'],
    ];
    for (const [experiment, complete, event] of read) fold.add(experiment, complete, event);
    expect([...fold.events()]).toEqual([
      'x2 changes',
      'y1 complete',
      'x4 changes',
      'x5 complete, late',
      'y2 changes',
    ]);
  });
});
