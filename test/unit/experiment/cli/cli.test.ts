import { describe, expect, it } from 'vitest';
import { DEFAULT_URL, parseCli } from '../../../../services/experiment/cli/cli-args.ts';
import {
  asStatus,
  exitCodeOf,
  finishedFor,
  isFinal,
  progressLine,
  runSummary,
  summaryText,
} from '../../../../services/experiment/cli/run-summary.ts';

describe('the experiment CLI arguments', () => {
  it('run with its defaults', () => {
    expect(parseCli(['run', 'exp.yaml'])).toEqual({
      kind: 'options',
      options: { command: 'run', file: 'exp.yaml', url: DEFAULT_URL, runners: 1, output: 'text' },
    });
  });

  it('run with every option; a trailing slash of the URL is dropped', () => {
    expect(
      parseCli(['run', 'exp.yaml', '--url', 'http://10.0.0.5:8686/', '--runners', '4', '--output', 'json']),
    ).toEqual({
      kind: 'options',
      options: { command: 'run', file: 'exp.yaml', url: 'http://10.0.0.5:8686', runners: 4, output: 'json' },
    });
    expect(parseCli(['run', 'e.yaml', '--runners=0'])).toMatchObject({ options: { runners: 0 } });
  });

  it('runner takes no option of run', () => {
    expect(parseCli(['runner'])).toEqual({ kind: 'options', options: { command: 'runner' } });
    expect(parseCli(['runner', '--runners', '2'])).toEqual({
      kind: 'error',
      message: '--runners is an option of run, not of runner',
    });
  });

  it('help', () => {
    expect(parseCli(['--help'])).toEqual({ kind: 'help' });
    expect(parseCli(['run', '-h'])).toEqual({ kind: 'help' });
  });

  it.each([
    [[], 'a command is required: one of run, runner'],
    [['start'], 'unknown command "start": one of run, runner'],
    [['run'], 'run needs the Experiment file: run FILE.yaml'],
    [['run', 'a.yaml', 'b.yaml'], 'unexpected argument "b.yaml"'],
    [['runner', 'x'], 'unexpected argument "x"'],
    [['run', 'a.yaml', '--runners', 'two'], '--runners must be a whole number from 0 to 64, got "two"'],
    [['run', 'a.yaml', '--runners=-1'], '--runners must be a whole number from 0 to 64, got "-1"'],
    [['run', 'a.yaml', '--runners', '65'], '--runners must be a whole number from 0 to 64, got "65"'],
    [['run', 'a.yaml', '--runners', '1.5'], '--runners must be a whole number from 0 to 64, got "1.5"'],
    [['run', 'a.yaml', '--output', 'yaml'], '--output must be text or json, got "yaml"'],
    [['run', 'a.yaml', '--url', 'localhost:8686'], '--url must be http or https, got "localhost"'],
    [
      ['run', 'a.yaml', '--url', 'nowhere'],
      `--url must be an http(s) URL such as ${DEFAULT_URL}, got "nowhere"`,
    ],
  ])('refuses %j: %s', (args, message) => {
    expect(parseCli(args)).toEqual({ kind: 'error', message });
  });

  it('names an unknown flag', () => {
    const parsed = parseCli(['run', 'a.yaml', '--runner', '2']);
    expect(parsed.kind).toBe('error');
    expect(parsed.kind === 'error' && parsed.message).toContain("'--runner'");
  });
});

const finalStatus = {
  experiment_name: 'random-example',
  condition: 'Succeeded' as const,
  reason: 'ExperimentGoalReached',
  message: 'Experiment has succeeded because Objective goal has reached',
  trials: {
    pending: 0,
    running: 0,
    succeeded: 5,
    failed: 1,
    killed: 2,
    early_stopped: 3,
    metrics_unavailable: 1,
  },
  best_trial: {
    name: 'random-example-x7k2',
    objective: '0.972',
    assignments: [
      { name: 'lr', value: '0.013' },
      { name: 'optimizer', value: 'adam' },
    ],
  },
};

describe('how run ends', () => {
  it('the JSON line: status, best trial (objective a number), Katib-style counts', () => {
    expect(JSON.stringify(runSummary(finalStatus))).toBe(
      '{"status":"Succeeded","bestTrial":{"name":"random-example-x7k2","parameters":{"lr":"0.013","optimizer":"adam"},"objective":0.972},"trials":{"succeeded":5,"failed":2,"earlyStopped":3,"killed":2}}',
    );
  });

  it('no best trial when none reported its objective', () => {
    expect(runSummary({ ...finalStatus, condition: 'Failed', best_trial: null }).bestTrial).toBeNull();
  });

  it('exit 0 only on Succeeded; only Succeeded and Failed end the wait', () => {
    expect(exitCodeOf(finalStatus)).toBe(0);
    expect(exitCodeOf({ condition: 'Failed' })).toBe(1);
    expect([
      isFinal(finalStatus),
      isFinal({ condition: 'Failed' }),
      isFinal({ condition: 'Running' }),
    ]).toEqual([true, true, false]);
  });

  it('the line for people', () => {
    expect(summaryText(finalStatus)).toBe(
      'experiment random-example Succeeded (ExperimentGoalReached: Experiment has succeeded because Objective goal has reached); best trial random-example-x7k2: lr=0.013 optimizer=adam → 0.972; trials: 5 succeeded, 2 failed, 3 early-stopped, 2 killed',
    );
  });
});

describe('following the status endpoint', () => {
  const answer = {
    name: 'random-example',
    generation: 2,
    statusGeneration: 2,
    condition: 'Running',
    reason: 'ExperimentRunning',
    message: 'Experiment is running',
    trials: { ...finalStatus.trials, pending: 1, running: 2 },
    best_trial: finalStatus.best_trial,
  };

  it('a progress line per state, with the best trial so far', () => {
    expect(progressLine(answer)).toBe(
      'Running: 1 pending, 2 running, 5 succeeded, 2 failed, 3 early-stopped, 2 killed; best random-example-x7k2 0.972',
    );
    expect(progressLine({ ...answer, condition: '', best_trial: null })).toMatch(/^Submitted: .* 2 killed$/);
  });

  it('is over only when the submitted generation (or a later one) ended', () => {
    expect(finishedFor(answer, 2)).toBe(false);
    expect(finishedFor({ ...answer, condition: 'Succeeded' }, 2)).toBe(true);
    expect(finishedFor({ ...answer, condition: 'Failed' }, 2)).toBe(true);
    // The status of the generation before this submission: the controller has not read it yet.
    expect(finishedFor({ ...answer, condition: 'Succeeded', statusGeneration: 1 }, 2)).toBe(false);
  });

  it('its answer summarizes like the event', () => {
    expect(runSummary(asStatus({ ...answer, condition: 'Succeeded' }))).toEqual(
      runSummary({ ...finalStatus, condition: 'Succeeded' }),
    );
  });
});
