import { describe, expect, it } from 'vitest';
import { IllegalMove, moveTrial } from '../../../../services/experiment/trials/domain/lifecycle.ts';
import { experimentYaml, LEASE_MS, Sim } from './controller-sim.ts';

const suggests = (calls: { kind: string }[]) =>
  calls.filter((c) => c.kind === 'suggest') as { kind: 'suggest'; count: number }[];

describe('the trial controller', () => {
  it('starts a new experiment: Running, then parallelTrialCount suggestions, then assignments', () => {
    const sim = new Sim();
    sim.submit(experimentYaml({ parallel: 2, max: 4 }));
    const calls = sim.settle();
    expect(sim.experiment().condition).toBe('Running');
    expect(suggests(calls)).toEqual([{ kind: 'suggest', experiment: 'exp', count: 2 }]);
    sim.answer(2);
    sim.settle();
    const [a, b] = sim.trialNames();
    expect(sim.condition(a!)).toBe('CREATED');
    const assigned = sim.published.filter((e) => e.eventType === 'TrialAssigned');
    expect(assigned.map((e) => e.payload)).toMatchObject([
      {
        trial_name: a,
        attempt: 1,
        command: ['python3', 'train.py', '--lr=0.01'],
        not_after: sim.now + 60_000,
        fresh_observations: false,
      },
      { trial_name: b, attempt: 1, command: ['python3', 'train.py', '--lr=0.02'] },
    ]);
  });

  it('follows a run: RUNNING when taken, SUCCEEDED once its objective is read, and keeps trials in flight', () => {
    const sim = new Sim();
    sim.submit(experimentYaml({ parallel: 2, max: 4 }));
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a] = sim.trialNames();
    sim.runEvent(a!, 'STARTED');
    sim.settle();
    expect(sim.condition(a!)).toBe('RUNNING');
    sim.runEvent(a!, 'EXITED');
    expect(sim.settle()).toEqual([{ kind: 'observe', trial: a }]);
    sim.observe(a!, '0.5');
    const calls = sim.settle();
    expect(sim.condition(a!)).toBe('SUCCEEDED');
    expect(suggests(calls)).toEqual([{ kind: 'suggest', experiment: 'exp', count: 1 }]);
    const status = sim.published.filter((e) => e.eventType === 'ExperimentStatusChanged').at(-1)!.payload;
    expect(status).toMatchObject({
      condition: 'Running',
      trials: { succeeded: 1, pending: 1 },
      best_trial: { name: a, objective: '0.5' },
    });
  });

  it('fails a trial whose process failed, with its exit code and stderr', () => {
    const sim = new Sim();
    sim.submit(experimentYaml());
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a] = sim.trialNames();
    sim.runEvent(a!, 'STARTED');
    sim.settle();
    sim.runEvent(a!, 'EXITED', { exitCode: 2, stderr: 'Traceback\nValueError: lr' });
    sim.settle();
    expect(sim.world.trial(a!)).toMatchObject({ condition: 'FAILED', reason: 'TrialFailed' });
    expect(sim.world.trial(a!).message).toBe(
      'The process ended with exit code 2; stderr:\nTraceback\nValueError: lr',
    );
  });

  it('marks a trial without its objective MetricsUnavailable', () => {
    const sim = new Sim();
    sim.submit(experimentYaml());
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a] = sim.trialNames();
    sim.runEvent(a!, 'STARTED');
    sim.settle();
    sim.runEvent(a!, 'EXITED');
    sim.settle();
    sim.world.observations.set(a!, [
      { name: 'loss', min: 'unavailable', max: 'unavailable', latest: 'unavailable' },
    ]);
    sim.asks.observing.delete(a!);
    sim.settle();
    expect(sim.condition(a!)).toBe('METRICSUNAVAILABLE');
  });

  it('succeeds when the goal is reached, killing what still runs', () => {
    const sim = new Sim();
    sim.submit(experimentYaml({ goal: 0.1, max: 10 }));
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a, b] = sim.trialNames();
    sim.runEvent(b!, 'STARTED');
    sim.settle();
    sim.complete(a!, '0.05');
    sim.settle();
    expect(sim.experiment()).toMatchObject({ condition: 'Succeeded', reason: 'ExperimentGoalReached' });
    expect(sim.world.trial(b!)).toMatchObject({ condition: 'KILLED', reason: 'TrialKilled' });
    expect(
      sim.published.filter((e) => e.eventType === 'ExperimentStatusChanged').at(-1)!.payload.best_trial?.name,
    ).toBe(a);
  });

  it('fails when maxFailedTrialCount trials failed (metrics-unavailable ones count)', () => {
    const sim = new Sim();
    sim.submit(experimentYaml({ parallel: 2, max: 6, maxFailed: 2 }));
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a, b] = sim.trialNames();
    for (const t of [a!, b!]) {
      sim.runEvent(t, 'STARTED');
      sim.settle();
    }
    sim.runEvent(a!, 'EXITED', { exitCode: 1 });
    sim.settle();
    expect(sim.experiment().condition).toBe('Running');
    sim.runEvent(b!, 'EXITED');
    sim.settle();
    sim.observe(b!, '');
    sim.settle();
    expect(sim.condition(b!)).toBe('METRICSUNAVAILABLE');
    expect(sim.experiment()).toMatchObject({ condition: 'Failed', reason: 'ExperimentFailed' });
    expect(sim.experiment().message).toMatch(/max failed count has reached \(2 of maxFailedTrialCount 2\)/);
  });

  it('succeeds after maxTrialCount trials, never asking for more than remain', () => {
    const sim = new Sim();
    sim.submit(experimentYaml({ parallel: 2, max: 3 }));
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a, b] = sim.trialNames();
    sim.complete(a!, '0.5');
    expect(suggests(sim.settle())).toEqual([{ kind: 'suggest', experiment: 'exp', count: 1 }]);
    sim.answer(1);
    sim.settle();
    sim.complete(b!, '0.4');
    expect(suggests(sim.settle())).toEqual([]);
    sim.complete(sim.trialNames()[2]!, '0.3');
    sim.settle();
    expect(sim.experiment()).toMatchObject({ condition: 'Succeeded', reason: 'ExperimentMaxTrialsReached' });
  });

  it('runs a trial again when its runner is gone, then fails it after maxRuns lost runs', () => {
    const sim = new Sim();
    sim.submit(experimentYaml());
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a] = sim.trialNames();
    sim.runEvent(a!, 'STARTED', { runner: 'r1' });
    sim.settle();
    sim.now += LEASE_MS - 1;
    sim.settle();
    expect(sim.condition(a!)).toBe('RUNNING');
    sim.now += 2;
    sim.settle();
    expect(sim.world.trial(a!)).toMatchObject({
      condition: 'CREATED',
      reason: 'RunnerLost',
      attempt: 2,
      lostRuns: 1,
    });
    const again = sim.published.filter((e) => e.eventType === 'TrialAssigned').at(-1)!;
    expect(again.payload).toMatchObject({ trial_name: a, attempt: 2, fresh_observations: true });
    const cancelled = sim.published.filter((e) => e.eventType === 'TrialRunChanged').at(-1)!;
    expect(cancelled.payload).toMatchObject({ trial_name: a, attempt: 1, phase: 'CANCELLED' });
    // Events of the old attempt are fenced off.
    sim.runEvent(a!, 'EXITED', { attempt: 1, exitCode: 0 });
    sim.settle();
    expect(sim.condition(a!)).toBe('CREATED');
    for (const attempt of [2, 3]) {
      sim.runEvent(a!, 'STARTED', { runner: `r${attempt}` });
      sim.settle();
      sim.now += LEASE_MS + 1;
      sim.settle();
    }
    expect(sim.world.trial(a!)).toMatchObject({ condition: 'FAILED', reason: 'RunnerLost', lostRuns: 2 });
    expect(sim.world.trial(a!).message).toMatch(/3 runs lost/);
  });

  it('keeps a run alive while its runner heartbeats', () => {
    const sim = new Sim();
    sim.submit(experimentYaml());
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a] = sim.trialNames();
    sim.runEvent(a!, 'STARTED', { runner: 'r1' });
    sim.settle();
    for (let i = 0; i < 5; i++) {
      sim.now += LEASE_MS / 2;
      sim.read({
        eventType: 'RunnerHeartbeat',
        payload: {
          event_id: `h${i}`,
          occurred_at: sim.now,
          runner_id: 'r1',
          host: 'h',
          pid: 1,
          slots: 0,
          running: [{ trial_name: a!, attempt: 1 }],
          stopping: false,
        },
      });
      sim.settle();
    }
    expect(sim.world.trial(a!)).toMatchObject({ condition: 'RUNNING', attempt: 1 });
  });

  it('assigns again at once a trial its runner gave back, without counting a lost run', () => {
    const sim = new Sim();
    sim.submit(experimentYaml());
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a] = sim.trialNames();
    sim.runEvent(a!, 'STARTED');
    sim.settle();
    sim.runEvent(a!, 'RELEASED');
    sim.settle();
    expect(sim.world.trial(a!)).toMatchObject({
      condition: 'CREATED',
      reason: 'RunnerStopped',
      attempt: 2,
      lostRuns: 0,
    });
  });

  it('assigns again an assignment no runner took in time', () => {
    const sim = new Sim();
    sim.submit(experimentYaml());
    sim.settle();
    sim.answer(2);
    sim.settle();
    sim.now += 60_001;
    sim.settle();
    const [a] = sim.trialNames();
    expect(sim.world.trial(a!)).toMatchObject({ condition: 'CREATED', attempt: 2, lostRuns: 0 });
  });

  it('counts an early-stopped trial as completed and reads its observation once its run is over', () => {
    const sim = new Sim();
    sim.submit(experimentYaml({ parallel: 2, max: 2 }));
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a, b] = sim.trialNames();
    sim.runEvent(a!, 'STARTED');
    sim.settle();
    sim.judgeStops(a!);
    expect(sim.settle()).toEqual([]);
    sim.runEvent(a!, 'KILLED');
    expect(sim.settle()).toEqual([{ kind: 'observe', trial: a }]);
    sim.observe(a!, '0.9');
    sim.complete(b!, '0.3');
    sim.settle();
    expect(sim.experiment()).toMatchObject({ condition: 'Succeeded', reason: 'ExperimentMaxTrialsReached' });
    expect(
      sim.published.filter((e) => e.eventType === 'ExperimentStatusChanged').at(-1)!.payload.trials,
    ).toMatchObject({ succeeded: 1, early_stopped: 1 });
  });

  it('ends when the algorithm has nothing more to suggest and nothing runs', () => {
    const sim = new Sim();
    sim.submit(experimentYaml({ parallel: 2, max: 10 }));
    sim.settle();
    sim.answer(1);
    sim.settle();
    const [a] = sim.trialNames();
    sim.fail('FAILED_PRECONDITION', 'grid is exhausted');
    expect(suggests(sim.settle())).toEqual([]);
    // Asked again once a trial changed.
    sim.runEvent(a!, 'STARTED');
    expect(suggests(sim.settle())).toEqual([{ kind: 'suggest', experiment: 'exp', count: 1 }]);
    sim.fail('FAILED_PRECONDITION', 'grid is exhausted');
    expect(sim.experiment().condition).toBe('Running');
    sim.runEvent(a!, 'EXITED');
    sim.settle();
    sim.observe(a!, '0.5');
    expect(suggests(sim.settle())).toEqual([{ kind: 'suggest', experiment: 'exp', count: 2 }]);
    sim.fail('FAILED_PRECONDITION', 'grid is exhausted');
    sim.settle();
    expect(sim.experiment()).toMatchObject({
      condition: 'Succeeded',
      reason: 'ExperimentSuggestionEndReached',
    });
  });

  it('fails the experiment when the algorithm refuses it, and retries after an outage', () => {
    const sim = new Sim();
    sim.submit(experimentYaml());
    sim.settle();
    sim.fail('UNAVAILABLE', 'kafka: down');
    expect(suggests(sim.settle())).toEqual([]);
    sim.now += 2_000;
    expect(suggests(sim.settle())).toHaveLength(1);
    sim.fail('INVALID_ARGUMENT', 'unknown setting foo for algorithm random');
    expect(sim.experiment()).toMatchObject({
      condition: 'Failed',
      message: 'Suggestion has failed: unknown setting foo for algorithm random',
    });
  });

  it('restarts a succeeded experiment sent again with more trials', () => {
    const sim = new Sim();
    sim.submit(experimentYaml({ parallel: 1, max: 1 }));
    sim.settle();
    sim.answer(1);
    sim.settle();
    sim.complete(sim.trialNames()[0]!, '0.5');
    sim.settle();
    expect(sim.experiment().condition).toBe('Succeeded');
    sim.submit(experimentYaml({ parallel: 1, max: 2, extra: '  resumePolicy: LongRunning\n' }), 'exp', 2);
    const calls = sim.settle();
    expect(
      sim.published
        .filter((e) => e.eventType === 'ExperimentStatusChanged')
        .map((e) => e.payload.condition)
        .slice(-3),
    ).toEqual(['Succeeded', 'Restarting', 'Running']);
    expect(suggests(calls)).toEqual([{ kind: 'suggest', experiment: 'exp', count: 1 }]);
  });

  it('gives the same world whatever order the topics are read in', () => {
    const sim = new Sim();
    sim.submit(experimentYaml());
    sim.settle();
    sim.answer(2);
    sim.settle();
    const [a] = sim.trialNames();
    sim.runEvent(a!, 'STARTED');
    sim.settle();
    sim.runEvent(a!, 'EXITED', { exitCode: 3 });
    sim.settle();
    const events = [...sim.published];
    const replayed = new Sim();
    replayed.submit(experimentYaml());
    // Statuses first, then runs, then the experiment's own records: another interleaving.
    const order = [
      'TrialStatusChanged',
      'TrialRunChanged',
      'TrialAssigned',
      'TrialsCreated',
      'ExperimentStatusChanged',
    ];
    for (const type of order) for (const e of events) if (e.eventType === type) replayed.read(e);
    replayed.runEvent(a!, 'STARTED', { attempt: 1 });
    replayed.runEvent(a!, 'EXITED', { attempt: 1, exitCode: 3 });
    const view = (s: Sim) =>
      [...s.world.trials.values()].map((t) => [t.name, t.condition, t.attempt, t.order]);
    expect(view(replayed)).toEqual(view(sim));
    // Nothing to write again; only the call that was under way is made again.
    expect(replayed.settle()).toEqual([{ kind: 'suggest', experiment: 'exp', count: 1 }]);
    expect(replayed.published).toEqual([]);
  });
});

describe('the transition table', () => {
  it('refuses a move it does not list, and never moves a finished trial', () => {
    expect(moveTrial('t', 'CREATED', 'RUNNING')).toBe('RUNNING');
    expect(() => moveTrial('t', 'CREATED', 'SUCCEEDED')).toThrow(IllegalMove);
    expect(() => moveTrial('t', 'SUCCEEDED', 'FAILED')).toThrow(
      'trial t: cannot go from SUCCEEDED to FAILED',
    );
  });

  it('ignores a late condition after a trial finished', () => {
    const sim = new Sim();
    sim.read({
      eventType: 'TrialStatusChanged',
      payload: {
        event_id: '1',
        occurred_at: 1,
        trial_name: 't',
        experiment_name: 'exp',
        condition: 'EARLYSTOPPED',
        reason: '',
        message: '',
        source: 'x',
      },
    });
    sim.read({
      eventType: 'TrialStatusChanged',
      payload: {
        event_id: '2',
        occurred_at: 2,
        trial_name: 't',
        experiment_name: 'exp',
        condition: 'SUCCEEDED',
        reason: '',
        message: '',
        source: 'x',
      },
    });
    expect(sim.condition('t')).toBe('EARLYSTOPPED');
  });
});
