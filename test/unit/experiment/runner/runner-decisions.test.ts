import { describe, expect, it } from 'vitest';
import { reportRequest } from '../../../../services/experiment/runner/observation-report.ts';
import {
  type HeldRun,
  heartbeat,
  NOT_STARTED_EXIT_CODE,
  pickUp,
  runEnded,
  runStarted,
  stopOrder,
} from '../../../../services/experiment/runner/runner-decisions.ts';
import { STDERR_LINE_CHARS, StderrTail } from '../../../../services/experiment/runner/stderr-tail.ts';

const NOW = 1_000_000;
const ME = { runnerId: 'r1', host: 'h1', pid: 42, slots: 2 };
const run = (trial: string, attempt = 1): HeldRun => ({ trial, experiment: 'exp', attempt });
const held = (...runs: HeldRun[]) => new Map(runs.map((r) => [r.trial, r]));
const state = (over: Partial<Parameters<typeof pickUp>[1]> = {}) => ({
  held: held(),
  seen: new Map<string, number>(),
  slots: 2,
  now: NOW,
  ...over,
});
const assignment = (trial: string, attempt = 1, notAfter = NOW + 1) => ({
  trial_name: trial,
  attempt,
  not_after: notAfter,
});

describe("a runner's pickup of an assignment", () => {
  it('takes a new attempt while a slot is free', () => {
    expect(pickUp(assignment('t1'), state())).toEqual({ kind: 'take', supersedes: undefined });
  });

  it('leaves a redelivered or older attempt', () => {
    const seen = new Map([['t1', 2]]);
    expect(pickUp(assignment('t1', 2), state({ seen }))).toMatchObject({ kind: 'leave' });
    expect(pickUp(assignment('t1', 1), state({ seen }))).toMatchObject({
      kind: 'leave',
      why: 'attempt 1 was seen already (latest 2)',
    });
  });

  it('leaves one read after its not_after (the controller has assigned it again)', () => {
    expect(pickUp(assignment('t1', 1, NOW - 1), state())).toMatchObject({ kind: 'leave' });
    expect(pickUp(assignment('t1', 1, Date.UTC(1970, 0, 1, 0, 16, 40)), state())).toMatchObject({
      kind: 'take',
    });
  });

  it('waits when every slot is busy, and never with no limit', () => {
    const busy = held(run('a'), run('b'));
    expect(pickUp(assignment('t1'), state({ held: busy }))).toEqual({ kind: 'wait' });
    expect(pickUp(assignment('t1'), state({ held: busy, slots: 0 }))).toMatchObject({ kind: 'take' });
  });

  it('replaces an older run of the same trial, even with every slot busy', () => {
    const busy = held(run('t1', 1), run('b'));
    expect(pickUp(assignment('t1', 2), state({ held: busy, seen: new Map([['t1', 1]]) }))).toEqual({
      kind: 'take',
      supersedes: run('t1', 1),
    });
  });
});

describe('what stops a held run', () => {
  const runEvent = (trial: string, attempt: number, phase: 'CANCELLED' | 'STARTED', message = '') => ({
    eventType: 'TrialRunChanged' as const,
    payload: {
      event_id: 'x',
      occurred_at: NOW,
      experiment_name: 'exp',
      trial_name: trial,
      attempt,
      runner_id: '',
      host: '',
      phase,
      exit_code: null,
      signal: '',
      objective_reported: false,
      stderr_tail: '',
      message,
    },
  });
  const statusEvent = (trial: string, condition: 'EARLYSTOPPED' | 'RUNNING' | 'KILLED', message = '') => ({
    eventType: 'TrialStatusChanged' as const,
    payload: {
      event_id: 'y',
      occurred_at: NOW,
      trial_name: trial,
      experiment_name: 'exp',
      condition,
      reason: '',
      message,
      source: 'test',
    },
  });
  const mine = held(run('t1', 2));

  it('a cancellation of the held attempt (or a later one), not of an older one', () => {
    expect(stopOrder(runEvent('t1', 2, 'CANCELLED', 'trial is KILLED'), mine)).toEqual({
      run: run('t1', 2),
      because: 'CANCELLED',
      message: 'trial is KILLED',
    });
    expect(stopOrder(runEvent('t1', 3, 'CANCELLED'), mine)?.message).toBe('the controller cancelled the run');
    expect(stopOrder(runEvent('t1', 1, 'CANCELLED'), mine)).toBeUndefined();
    expect(stopOrder(runEvent('t1', 2, 'STARTED'), mine)).toBeUndefined();
    expect(stopOrder(runEvent('t9', 2, 'CANCELLED'), mine)).toBeUndefined();
  });

  it('the trial early-stopped or killed; not RUNNING', () => {
    expect(stopOrder(statusEvent('t1', 'EARLYSTOPPED', 'accuracy < 0.5'), mine)).toEqual({
      run: run('t1', 2),
      because: 'EARLYSTOPPED',
      message: 'trial is EARLYSTOPPED: accuracy < 0.5',
    });
    expect(stopOrder(statusEvent('t1', 'KILLED'), mine)?.message).toBe('trial is KILLED');
    expect(stopOrder(statusEvent('t1', 'RUNNING'), mine)).toBeUndefined();
  });
});

describe("a run's events", () => {
  it('STARTED names the process, keyed by trial, attempt and phase', () => {
    expect(runStarted(run('t1', 3), ME, 777, NOW)).toMatchObject({
      event_id: 't1:3:STARTED',
      trial_name: 't1',
      attempt: 3,
      runner_id: 'r1',
      host: 'h1',
      phase: 'STARTED',
      exit_code: null,
      message: 'process 777',
    });
  });

  it('EXITED carries the exit code or the signal, and the stderr tail', () => {
    const exited = runEnded(
      run('t1'),
      ME,
      { kind: 'exited', exitCode: 3, signal: '', stderrTail: 'boom' },
      true,
      NOW,
    );
    expect(exited).toMatchObject({
      phase: 'EXITED',
      exit_code: 3,
      stderr_tail: 'boom',
      objective_reported: true,
    });
    const signalled = runEnded(
      run('t1'),
      ME,
      { kind: 'exited', exitCode: null, signal: 'SIGSEGV', stderrTail: '' },
      false,
      NOW,
    );
    expect(signalled).toMatchObject({ phase: 'EXITED', exit_code: null, signal: 'SIGSEGV' });
  });

  it('a process that could not start is EXITED 127 with the reason', () => {
    expect(
      runEnded(run('t1'), ME, { kind: 'not-started', message: 'spawn python9 ENOENT' }, false, NOW),
    ).toMatchObject({ phase: 'EXITED', exit_code: NOT_STARTED_EXIT_CODE, message: 'spawn python9 ENOENT' });
  });

  it('KILLED when told to stop, RELEASED when the runner stops', () => {
    const order = { run: run('t1'), because: 'EARLYSTOPPED', message: 'trial is EARLYSTOPPED' };
    expect(runEnded(run('t1'), ME, { kind: 'stopped', order, stderrTail: '' }, true, NOW)).toMatchObject({
      event_id: 't1:1:KILLED',
      phase: 'KILLED',
      message: 'stopped: trial is EARLYSTOPPED',
    });
    expect(runEnded(run('t1'), ME, { kind: 'released', stderrTail: '' }, false, NOW)).toMatchObject({
      phase: 'RELEASED',
      message: 'the runner stopped',
    });
  });

  it('a heartbeat lists the held attempts', () => {
    expect(heartbeat(ME, [run('a', 1), run('b', 4)], false, 'id-1', NOW)).toEqual({
      event_id: 'id-1',
      occurred_at: NOW,
      runner_id: 'r1',
      host: 'h1',
      pid: 42,
      slots: 2,
      running: [
        { trial_name: 'a', attempt: 1 },
        { trial_name: 'b', attempt: 4 },
      ],
      stopping: false,
    });
  });
});

describe('the stderr tail', () => {
  it('keeps the last lines, across pieces, with the unfinished last line', () => {
    const tail = new StderrTail(3);
    tail.push('one\ntw');
    tail.push('o\nthree\r\nfour\nfi');
    expect(tail.text()).toBe('three\nfour\nfi');
  });

  it('cuts a huge line', () => {
    const tail = new StderrTail();
    tail.push(`${'x'.repeat(STDERR_LINE_CHARS + 10)}\n`);
    expect(tail.text()).toBe(`${'x'.repeat(STDERR_LINE_CHARS)}…`);
  });
});

describe('the ReportObservationLog request', () => {
  it("carries each value with its time, as Katib's collector sends it", () => {
    expect(
      reportRequest('t1', [
        { timeStamp: '2026-01-01T00:00:01Z', name: 'accuracy', value: '0.81' },
        { timeStamp: '2026-01-01T00:00:01Z', name: 'loss', value: '0.2' },
      ]),
    ).toEqual({
      trial_name: 't1',
      observation_log: {
        metric_logs: [
          { time_stamp: '2026-01-01T00:00:01Z', metric: { name: 'accuracy', value: '0.81' } },
          { time_stamp: '2026-01-01T00:00:01Z', metric: { name: 'loss', value: '0.2' } },
        ],
      },
    });
  });
});
