// A held run against real local processes (no network): the DBManager is an in-memory fake.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedRun, startHeldRun } from '../../../../services/experiment/runner/adapters/held-run.ts';
import type { MetricLog } from '../../../../services/experiment/runner/metrics-lines.ts';
import type { ObservationReporter } from '../../../../services/experiment/runner/ports.ts';
import { systemClock } from '../../../../shared/clock.ts';
import { memoryLogger } from '../../../helpers/memory-logger.ts';
import { waitFor } from '../../../helpers/wait-for.ts';

function fakeReporter() {
  const calls: { trial: string; logs: MetricLog[] }[] = [];
  const removed: string[] = [];
  const reporter: ObservationReporter = {
    report: async (trial, logs) => void calls.push({ trial, logs: [...logs] }),
    remove: async (trial) => void removed.push(trial),
    close: () => undefined,
  };
  const values = () => calls.flatMap((c) => c.logs.map((l) => `${l.name}=${l.value}`));
  return { reporter, calls, removed, values };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'held-run-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const assignment = (script: string, over: Record<string, unknown> = {}) => ({
  event_id: 't1:1:assigned',
  occurred_at: 0,
  experiment_name: 'exp',
  trial_name: 't1',
  attempt: 1,
  not_after: 0,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Katib's placeholder, left as the runner gets it
  command: [process.execPath, '-e', script, '--', '${trialParameters.lr}'],
  env: [{ name: 'TRIAL_ENV', value: 'from-env' }],
  working_dir: '',
  collector: { kind: 'StdOut' as const, path: '', format: 'TEXT' as const, filters: [] as string[] },
  metric_names: ['accuracy', 'loss'],
  objective_type: 'maximize',
  fresh_observations: false,
  ...over,
});

function deps(reporter: ObservationReporter) {
  return {
    reporter,
    clock: systemClock,
    logger: memoryLogger().logger,
    baseEnv: { PATH: '/usr/bin:/bin' },
    runnerDir: dir,
    stopGraceMs: 2_000,
    filePollMs: 20,
    reportAttempts: 3,
  };
}

async function started(script: string, reporter: ObservationReporter, over: Record<string, unknown> = {}) {
  const run = await startHeldRun(assignment(script, over), deps(reporter));
  if (!('pid' in run)) throw new Error(`did not start: ${JSON.stringify(run.end)}`);
  return run as StartedRun;
}

/** Running, not a zombie waiting for whoever adopted it to reap it. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('a held run (real processes)', () => {
  it('reports stdout values in order, with the container env; EXITED 0 with the objective', async () => {
    const fake = fakeReporter();
    const run = await started(
      "console.log('epoch 1 accuracy=0.5 loss=0.9'); console.log('no metric'); process.stdout.write('accuracy=0.81 ' + process.env.TRIAL_ENV)",
      fake.reporter,
    );
    const { end, objectiveReported } = await run.ended;
    expect(end).toEqual({ kind: 'exited', exitCode: 0, signal: '', stderrTail: '' });
    expect(objectiveReported).toBe(true);
    expect(fake.values()).toEqual(['accuracy=0.5', 'loss=0.9', 'accuracy=0.81']);
  });

  it('a run that never printed its objective gets Katib\'s "unavailable" value', async () => {
    const fake = fakeReporter();
    const run = await started("console.log('loss=0.3')", fake.reporter);
    const { objectiveReported } = await run.ended;
    expect(objectiveReported).toBe(false);
    expect(fake.calls.at(-1)?.logs).toEqual([
      { timeStamp: '0001-01-01T00:00:00Z', name: 'accuracy', value: 'unavailable' },
    ]);
  });

  it('a failing run ends with its exit code and the last lines of stderr', async () => {
    const fake = fakeReporter();
    const run = await started(
      "for (let i = 0; i < 30; i++) console.error('line ' + i); process.exit(3)",
      fake.reporter,
    );
    const { end } = await run.ended;
    expect(end.kind).toBe('exited');
    if (end.kind !== 'exited') return;
    expect(end.exitCode).toBe(3);
    expect(end.stderrTail.split('\n')).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i + 10}`));
  });

  it('a stop kills the whole process group (a grandchild too); no "unavailable" is reported', async () => {
    const fake = fakeReporter();
    const script = `
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      console.log('grandchild=' + child.pid);
      setInterval(() => {}, 1000);`;
    const run = await started(script, fake.reporter, { metric_names: ['grandchild'] });
    const grandchild = await waitFor('the grandchild pid', () => {
      const value = fake.calls[0]?.logs[0]?.value;
      return value === undefined ? undefined : Number(value);
    });
    expect(alive(grandchild)).toBe(true);
    run.stop({ run: run.run, because: 'EARLYSTOPPED', message: 'trial is EARLYSTOPPED' });
    const { end } = await run.ended;
    expect(end).toMatchObject({ kind: 'stopped', order: { because: 'EARLYSTOPPED' } });
    await waitFor('the grandchild to be gone', () => !alive(grandchild), { timeoutMs: 5_000 });
    expect(fake.values()).toEqual([`grandchild=${grandchild}`]);
  });

  it('a command that cannot start is not-started, naming it', async () => {
    const fake = fakeReporter();
    const run = await startHeldRun(
      assignment('', { command: ['/nonexistent/python9', 'train.py'] }),
      deps(fake.reporter),
    );
    expect('pid' in run).toBe(false);
    if ('pid' in run) return;
    expect(run.end).toMatchObject({ kind: 'not-started' });
    expect(run.end.kind === 'not-started' && run.end.message).toContain(
      'cannot start "/nonexistent/python9"',
    );
  });

  it('deletes the old log first when the run starts afresh', async () => {
    const fake = fakeReporter();
    const run = await started("console.log('accuracy=0.7')", fake.reporter, { fresh_observations: true });
    await run.ended;
    expect(fake.removed).toEqual(['t1']);
  });

  it('the File collector reads a JSON metrics file in its working directory, to its end', async () => {
    const fake = fakeReporter();
    const script = `
      const fs = require('node:fs');
      fs.appendFileSync('metrics.json', JSON.stringify({ accuracy: '0.6', timestamp: 1700000000.5 }) + '\\n');
      setTimeout(() => fs.appendFileSync('metrics.json', JSON.stringify({ accuracy: 0.9 })), 100);`;
    const run = await started(script, fake.reporter, {
      working_dir: 'trial-a',
      collector: { kind: 'File', path: 'metrics.json', format: 'JSON', filters: [] },
    });
    await run.ended;
    expect(fake.values()).toEqual(['accuracy=0.6', 'accuracy=0.9']);
    expect(fake.calls[0]?.logs[0]?.timeStamp).toBe('2023-11-14T22:13:20.5Z');
  });
});
