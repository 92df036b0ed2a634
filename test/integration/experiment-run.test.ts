// Issue 43 end to end: the experiment service with its trial controller, `experiment run` and
// `experiment runner` processes, trials as local processes. The algorithm (grid) picks its points in
// an order of its own, so what a trial does is set by when it starts, not by its parameters: the
// k-th process started for an experiment takes the k-th entry of the experiment's plan (the last
// one past its end) and writes its label to slot k. An entry is the accuracy the run climbs to
// (below 0.5: slowly, so that medianstop can stop it) or "fail" (exit 3).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Bus, ConsumedEvent } from '../../shared/bus/index.ts';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { openTestBus, testKafkaClient, uniqueName } from '../helpers/kafka.ts';
import { readAllEvents, readEvents } from '../helpers/topic-events.ts';
import { waitFor } from '../helpers/wait-for.ts';

const infra = inject('infra');
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'services', 'experiment', 'cli.ts');
const dir = mkdtempSync(join(tmpdir(), 'experiment-run-'));
const TRIAL_SCRIPT = join(dir, 'trial.mjs');
writeFileSync(
  TRIAL_SCRIPT,
  `import { closeSync, openSync, writeSync } from 'node:fs';
const arg = (name) => process.argv.find((a) => a.startsWith('--' + name + '='))?.slice(name.length + 3) ?? '';
const plan = arg('plan').split(',');
let slot = 0;
for (;; slot++) {
  try {
    const fd = openSync(arg('slots') + '/' + slot, 'wx');
    writeSync(fd, arg('label'));
    closeSync(fd);
    break;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
}
const ceiling = plan[Math.min(slot, plan.length - 1)];
if (ceiling === 'fail') { console.error('diverged: loss is nan'); process.exit(3); }
const top = Number(ceiling);
const slow = top < 0.5;
for (let epoch = 1; epoch <= (slow ? 40 : 4); epoch++) {
  await new Promise((r) => setTimeout(r, slow ? 500 : 100));
  console.log('epoch ' + epoch + ' accuracy=' + (top * epoch / (slow ? 40 : 4)).toFixed(4));
}
`,
);

const settings: Record<string, string> = {
  KAFKA_BROKERS: infra.KAFKA_BROKERS,
  OBSERVATION_STORE: 'sqlite',
  SQLITE_FILE: join(dir, 'observations.db'),
  PERSISTENCE_GROUP: uniqueName('test-run-persistence'),
  EARLY_STOPPING_GROUP: uniqueName('test-run-judge'),
  WORKER_SESSION_TIMEOUT_MS: '6000',
  READ_BARRIER_TIMEOUT_MS: '30000',
  TRIAL_CONTROLLER: 'true',
  TRIAL_LEASE_MS: '4000',
  TRIAL_PICKUP_TIMEOUT_MS: '15000',
  RUNNER_HEARTBEAT_MS: '500',
};
const runnerGroup = uniqueName('test-runners');
let bus: Bus;
let server: ExperimentServer;

const runnerEnv = () => ({
  PATH: process.env.PATH ?? '',
  LOG_LEVEL: 'info',
  KAFKA_BROKERS: infra.KAFKA_BROKERS,
  KAFKA_CLIENT: testKafkaClient,
  KAFKA_TOPIC_PREFIX: server.topicPrefix,
  RUNNER_GROUP: runnerGroup,
  RUNNER_DB_MANAGER_ADDRESS: server.address,
  RUNNER_HEARTBEAT_MS: '500',
  RUNNER_STOP_GRACE_MS: '1000',
  WORKER_SESSION_TIMEOUT_MS: '6000',
});

interface ExperimentFile {
  readonly file: string;
  readonly name: string;
  /** The labels of the runs started so far, in start order. */
  labelsBySlot(): string[];
}

function experimentFile(options: {
  plan: readonly string[];
  parallel: number;
  goal?: number;
  maxFailed?: number;
  earlyStopping?: boolean;
}): ExperimentFile {
  const name = uniqueName('run');
  const file = join(dir, `${name}.yaml`);
  const slots = join(dir, `${name}-slots`);
  mkdirSync(slots);
  const labels = options.plan.map((_, i) => `"p${i}"`).join(', ');
  writeFileSync(
    file,
    `apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata: { name: ${name} }
spec:
  objective: { type: maximize, objectiveMetricName: accuracy${options.goal === undefined ? '' : `, goal: ${options.goal}`} }
  algorithm: { algorithmName: grid }
${options.earlyStopping ? '  earlyStopping: { algorithmName: medianstop, algorithmSettings: [{ name: min_trials_required, value: "1" }, { name: start_step, value: "6" }] }\n' : ''}  parallelTrialCount: ${options.parallel}
  maxTrialCount: ${options.plan.length}
${options.maxFailed === undefined ? '' : `  maxFailedTrialCount: ${options.maxFailed}\n`}  parameters:
    - { name: label, parameterType: categorical, feasibleSpace: { list: [${labels}] } }
  trialTemplate:
    primaryContainerName: main
    trialParameters: [{ name: label, reference: label }]
    trialSpec:
      apiVersion: batch/v1
      kind: Job
      spec: { template: { spec: { containers: [{ name: main, command: [node, ${JSON.stringify(TRIAL_SCRIPT)}, "--label=\${trialParameters.label}", "--plan=${options.plan.join(',')}", ${JSON.stringify(`--slots=${slots}`)}] }] } } }
`,
  );
  const labelsBySlot = () =>
    readdirSync(slots)
      .map(Number)
      .sort((a, b) => a - b)
      .map((slot) => readFileSync(join(slots, String(slot)), 'utf8'));
  return { file, name, labelsBySlot };
}

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runCli(args: readonly string[], timeoutMs = 150_000): Promise<Finished> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: runnerEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** `experiment run FILE` against the test's service with N local runners, its summary as JSON. */
const runJson = (file: string, runners: number) =>
  runCli([
    'run',
    file,
    '--url',
    `http://127.0.0.1:${server.httpPort}`,
    '--runners',
    String(runners),
    '--output',
    'json',
  ]);

const lastJson = (out: Finished) => JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '{}');

interface Runner {
  readonly child: ChildProcess;
  output: string;
}
const runners: Runner[] = [];
function startRunner(): Runner {
  const child = spawn(process.execPath, [CLI, 'runner'], {
    cwd: ROOT,
    env: runnerEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const runner: Runner = { child, output: '' };
  child.stdout!.on('data', (c: Buffer) => (runner.output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (runner.output += c.toString()));
  runners.push(runner);
  return runner;
}
const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

async function submit(file: string): Promise<void> {
  const { readFileSync } = await import('node:fs');
  const response = await fetch(`http://127.0.0.1:${server.httpPort}/api/experiments`, {
    method: 'POST',
    body: readFileSync(file, 'utf8'),
  });
  expect(response.status, await response.clone().text()).toBe(201);
}

async function statusOf(name: string, httpPort = server.httpPort) {
  const response = await fetch(`http://127.0.0.1:${httpPort}/api/experiments/${name}/status`);
  return response.ok
    ? ((await response.json()) as { condition: string; trials: Record<string, number> })
    : undefined;
}

/** The run events of the experiment's trials, read until `enough`. */
const runEvents = (name: string, enough: (events: readonly ConsumedEvent[]) => boolean) =>
  readEvents(bus, server.topics.trialRuns.name, (key) => key.startsWith(`${name}-`), enough, 60_000);
/** Every run event of the experiment's trials so far. */
const allRunEvents = (name: string) =>
  readAllEvents(bus, server.topics.trialRuns.name, (key) => key.startsWith(`${name}-`));

/** No attempt of a trial was started by two runners; a new attempt starts only after the last one ended. */
function neverTwiceAtOnce(events: readonly ConsumedEvent[]): void {
  const byTrial = new Map<string, { attempt: number; phase: string; runner: string }[]>();
  for (const e of events)
    if (e.eventType === 'TrialRunChanged')
      byTrial.set(e.payload.trial_name, [
        ...(byTrial.get(e.payload.trial_name) ?? []),
        { attempt: e.payload.attempt, phase: e.payload.phase, runner: e.payload.runner_id },
      ]);
  for (const [trial, runs] of byTrial) {
    const starts = runs.filter((r) => r.phase === 'STARTED');
    const attempts = starts.map((s) => s.attempt);
    expect(new Set(attempts).size, `${trial}: an attempt started twice`).toBe(attempts.length);
  }
}

beforeAll(async () => {
  bus = openTestBus(infra.KAFKA_BROKERS);
  server = await startExperimentServer(settings);
});

afterAll(async () => {
  for (const runner of runners) runner.child.kill('SIGKILL');
  await Promise.all(runners.map((r) => exited(r.child)));
  if (server) await server.stop();
  await bus?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('experiment run', () => {
  it('refuses a bad file naming each field, and a bad flag naming it', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'apiVersion: kubeflow.org/v1beta1\nkind: Experiment\nmetadata: { name: bad }\nspec: { parallelTrialCount: 0 }\n',
    );
    const refused = await runCli([
      'run',
      bad,
      '--url',
      `http://127.0.0.1:${server.httpPort}`,
      '--runners',
      '0',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('spec.parallelTrialCount');
    const flag = await runCli(['run', bad, '--runners', 'many']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--runners');
  });

  it('runs an experiment with two runners, medianstop stopping the bad trials', async () => {
    const experiment = experimentFile({
      plan: ['0.9', '0.91', '0.2', '0.21'],
      parallel: 2,
      earlyStopping: true,
    });
    const { file } = experiment;
    const out = await runJson(file, 2);
    expect(out.code, out.stderr).toBe(0);
    const summary = lastJson(out);
    expect(summary).toMatchObject({
      status: 'Succeeded',
      bestTrial: { parameters: { label: experiment.labelsBySlot()[1] } },
      trials: { succeeded: 2, earlyStopped: 2, failed: 0 },
    });
    expect(summary.bestTrial.objective).toBeCloseTo(0.91, 4);
    // What the page reads: every trial with its parameters and condition.
    const page = `http://127.0.0.1:${server.httpPort}/api/experiments/${experiment.name}/trials?sort=name`;
    const shown = async () =>
      ((await (await fetch(page)).json()) as { trials: { assignments: unknown[]; condition: string }[] })
        .trials;
    await waitFor('the read model to show every trial', async () => {
      const trials = await shown();
      return trials.length === 4 && trials.every((t) => t.assignments.length === 1);
    });
    const conditions = (await shown()).map((t) => t.condition).sort();
    expect(conditions).toEqual(['EARLYSTOPPED', 'EARLYSTOPPED', 'SUCCEEDED', 'SUCCEEDED']);
  });

  it('ends Succeeded at the goal', async () => {
    const experiment = experimentFile({ plan: ['0.9', '0.2', '0.21', '0.22'], parallel: 1, goal: 0.85 });
    const { file } = experiment;
    const out = await runJson(file, 1);
    expect(out.code, out.stderr).toBe(0);
    // The first trial reached the goal: no other was started.
    expect(lastJson(out)).toMatchObject({
      status: 'Succeeded',
      bestTrial: { parameters: { label: experiment.labelsBySlot()[0] } },
      trials: { succeeded: 1, failed: 0, earlyStopped: 0, killed: 0 },
    });
    expect(experiment.labelsBySlot()).toHaveLength(1);
  });

  it('ends Failed at maxFailedTrialCount, the failure reason the exit code and stderr', async () => {
    const { file, name } = experimentFile({ plan: ['fail', '0.9', '0.91'], parallel: 1, maxFailed: 1 });
    const out = await runJson(file, 1);
    expect(out.code).toBe(1);
    expect(lastJson(out)).toMatchObject({ status: 'Failed', trials: { failed: 1 } });
    const statuses = await readEvents(
      bus,
      server.topics.trialStatus.name,
      (key) => key.startsWith(`${name}-`),
      (events) =>
        events.some((e) => e.eventType === 'TrialStatusChanged' && e.payload.condition === 'FAILED'),
    );
    const failed = statuses.find(
      (e) => e.eventType === 'TrialStatusChanged' && e.payload.condition === 'FAILED',
    );
    expect(failed?.eventType === 'TrialStatusChanged' && failed.payload.message).toContain('exit code 3');
    expect(failed?.eventType === 'TrialStatusChanged' && failed.payload.message).toContain(
      'diverged: loss is nan',
    );
    // The reason as the page shows it.
    const trialName = failed?.eventType === 'TrialStatusChanged' ? failed.payload.trial_name : '';
    await waitFor('the read model to show the failure', async () => {
      const reply = await fetch(`http://127.0.0.1:${server.httpPort}/api/trials/${trialName}`);
      const view = reply.ok
        ? ((await reply.json()) as { trial: { condition: string; message: string } })
        : undefined;
      return view?.trial.condition === 'FAILED' && view.trial.message.includes('exit code 3');
    });
  });

  it('runs a trial again when its runner is SIGKILLed mid-trial, never twice at once', async () => {
    const { file, name } = experimentFile({ plan: ['0.3', '0.9'], parallel: 1 });
    const first = startRunner();
    const second = startRunner();
    await submit(file);
    const started = await runEvents(name, (events) =>
      events.some((e) => e.eventType === 'TrialRunChanged' && e.payload.phase === 'STARTED'),
    );
    const start = started.find((e) => e.eventType === 'TrialRunChanged' && e.payload.phase === 'STARTED')!;
    const holder = start.eventType === 'TrialRunChanged' ? start.payload.runner_id : '';
    const victim = [first, second].find((r) => holder.endsWith(`-${r.child.pid}`))!;
    victim.child.kill('SIGKILL');
    await waitFor(
      'the experiment to succeed',
      async () => (await statusOf(name))?.condition === 'Succeeded',
      {
        timeoutMs: 120_000,
      },
    );
    const runs = await allRunEvents(name);
    neverTwiceAtOnce(runs);
    const lostTrial = start.eventType === 'TrialRunChanged' ? start.payload.trial_name : '';
    const history = runs.flatMap((e) =>
      e.eventType === 'TrialRunChanged'
        ? [`${e.payload.trial_name}#${e.payload.attempt} ${e.payload.phase} ${e.payload.runner_id}`]
        : [],
    );
    expect(history, `${lostTrial} ran again: ${history.join('; ')}`).toContainEqual(
      expect.stringMatching(new RegExp(`^${lostTrial}#2 STARTED `)),
    );
  });

  it('resumes after the controller is SIGKILLed mid-experiment, its runners carrying on', async () => {
    const { file, name } = experimentFile({ plan: ['0.3', '0.31', '0.9', '0.91'], parallel: 2 });
    const kept = [startRunner(), startRunner()];
    await submit(file);
    await waitFor('a trial to run', async () => ((await statusOf(name))?.trials.running ?? 0) > 0, {
      timeoutMs: 60_000,
    });
    await server.kill();
    // Back where it was: the runners' reports reach it again, as after a restart in place.
    server = await startExperimentServer(settings, { replayHistory: true, samePortsAs: server });
    await waitFor(
      'the experiment to succeed',
      async () => (await statusOf(name))?.condition === 'Succeeded',
      { timeoutMs: 150_000 },
    );
    expect((await statusOf(name))?.trials).toMatchObject({ succeeded: 4 });
    neverTwiceAtOnce(await allRunEvents(name));
    for (const runner of kept) expect(runner.child.exitCode, runner.output).toBeNull();
  });
});
