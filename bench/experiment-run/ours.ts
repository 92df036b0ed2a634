// Our side of bench/experiment-run.ts: an Experiment file, `experiment run` on it as a user types it
// (the CLI and its local runners as child processes), and what each trial's events say afterwards.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { type Bus, TOPICS } from '../../shared/bus/index.ts';
import { readAllEvents } from '../../test/helpers/topic-events.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'services', 'experiment', 'cli.ts');
export const INSTANT_TRIAL = join(import.meta.dirname, 'instant-trial.mjs');

/** `random` over one parameter, one trial at a time, the instant trial; t0 is collected as a metric. */
export function overheadExperiment(name: string, trials: number, node: string): string {
  return `apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata: { name: ${name} }
spec:
  objective: { type: maximize, objectiveMetricName: accuracy, additionalMetricNames: [t0] }
  algorithm: { algorithmName: random }
  parallelTrialCount: 1
  maxTrialCount: ${trials}
  parameters:
    - { name: x, parameterType: double, feasibleSpace: { min: "0", max: "1" } }
  trialTemplate:
    primaryContainerName: main
    trialParameters: [{ name: x, reference: x }]
    trialSpec:
      apiVersion: batch/v1
      kind: Job
      spec: { template: { spec: { containers: [{ name: main, command: [${JSON.stringify(node)}, ${JSON.stringify(INSTANT_TRIAL)}, "--x=\${trialParameters.x}"] }] } } }
`;
}

/**
 * examples/random.yaml as Katib's users have it, with its name, trial counts and no goal (so both
 * sides run every trial; train.mjs never reaches it anyway).
 */
export function exampleExperiment(name: string, trials: number, parallel: number): string {
  const doc = load(readFileSync(join(ROOT, 'examples', 'random.yaml'), 'utf8')) as {
    metadata: { name: string };
    spec: { objective: { goal?: number }; parallelTrialCount: number; maxTrialCount: number };
  };
  doc.metadata.name = name;
  doc.spec.parallelTrialCount = parallel;
  doc.spec.maxTrialCount = trials;
  delete doc.spec.objective.goal;
  return JSON.stringify(doc, null, 2); // JSON is YAML
}

export interface CliRun {
  readonly code: number | null;
  readonly wallMs: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `experiment run FILE --url URL --runners N --output json`; `onSpawn` gets the CLI's pid. */
export async function runExperiment(options: {
  readonly yaml: string;
  readonly dir: string;
  readonly url: string;
  readonly runners: number;
  readonly env: Record<string, string>;
  readonly onSpawn: (pid: number) => void;
  readonly timeoutMs: number;
}): Promise<CliRun> {
  const file = join(options.dir, `experiment-${Date.now()}.yaml`);
  writeFileSync(file, options.yaml);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, 'run', file, '--url', options.url, '--runners', String(options.runners), '--output', 'json'],
    { cwd: ROOT, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  options.onSpawn(child.pid ?? 0);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, wallMs: performance.now() - started, stdout, stderr };
}

/** One trial as its events tell it (ms since the epoch). */
export interface TrialTimes {
  readonly trial: string;
  /** The Kafka timestamp of its TrialAssigned (the controller handed it out). */
  readonly assignedAt?: number;
  /** When its process started (TrialRunChanged STARTED). */
  readonly startedAt: number;
  /** The script's own start, from its t0 metric (the overhead experiment only). */
  readonly t0?: number;
  /** The Kafka timestamp of its first ObservationLogReported. */
  readonly firstStoredAt?: number;
  /** TrialRunChanged EXITED: the runner saw the process end and every report acknowledged. */
  readonly exitedAt: number;
  /** The Kafka timestamp of its TrialStatusChanged SUCCEEDED (the controller's verdict). */
  readonly succeededAt?: number;
}

/** Every trial of the experiment, in start order, read from the topics' beginnings to their ends. */
export async function trialTimes(bus: Bus, experiment: string): Promise<TrialTimes[]> {
  const ours = (key: string) => key.startsWith(`${experiment}-`);
  const runs = await readAllEvents(bus, TOPICS.trialRuns.name, ours);
  const observations = await readAllEvents(bus, TOPICS.observations.name, ours);
  const assignments = await readAllEvents(bus, TOPICS.trialAssignments.name, ours);
  const statuses = await readAllEvents(bus, TOPICS.trialStatus.name, ours);
  const byTrial = new Map<
    string,
    {
      assignedAt?: number;
      startedAt?: number;
      exitedAt?: number;
      succeededAt?: number;
      t0?: number;
      stored?: number;
    }
  >();
  const entry = (trial: string) => byTrial.get(trial) ?? byTrial.set(trial, {}).get(trial)!;
  for (const e of runs) {
    if (e.eventType !== 'TrialRunChanged' || e.payload.attempt !== 1) continue;
    const at = e.payload.occurred_at.getTime();
    if (e.payload.phase === 'STARTED') entry(e.payload.trial_name).startedAt = at;
    if (e.payload.phase === 'EXITED') entry(e.payload.trial_name).exitedAt = at;
  }
  for (const e of assignments)
    if (e.eventType === 'TrialAssigned' && e.payload.attempt === 1)
      entry(e.payload.trial_name).assignedAt = e.timestamp;
  for (const e of statuses)
    if (e.eventType === 'TrialStatusChanged' && e.payload.condition === 'SUCCEEDED')
      entry(e.payload.trial_name).succeededAt ??= e.timestamp;
  for (const e of observations) {
    if (e.eventType !== 'ObservationLogReported') continue;
    const trial = entry(e.payload.trial_name);
    if (trial.stored === undefined) trial.stored = e.timestamp;
    const t0 = e.payload.metric_logs.find((log) => log.metric_name === 't0');
    if (t0 !== undefined && trial.t0 === undefined) trial.t0 = Number(t0.value);
  }
  return [...byTrial]
    .filter(([, t]) => t.startedAt !== undefined && t.exitedAt !== undefined)
    .map(([trial, t]) => ({
      trial,
      startedAt: t.startedAt!,
      exitedAt: t.exitedAt!,
      ...(t.assignedAt === undefined ? {} : { assignedAt: t.assignedAt }),
      ...(t.succeededAt === undefined ? {} : { succeededAt: t.succeededAt }),
      ...(t.t0 === undefined ? {} : { t0: t.t0 }),
      ...(t.stored === undefined ? {} : { firstStoredAt: t.stored }),
    }))
    .sort((a, b) => a.startedAt - b.startedAt);
}
