import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readProgressEvents } from '../../services/kvupgrade/adapters/progress-topic.ts';
import type { UpgradeProgress } from '../../services/kvupgrade/domain/progress.ts';
import { TOPICS } from '../../shared/bus/index.ts';
import type { InfraEnv } from '../integration/global-setup.ts';
import { openTestBus } from './kafka.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Collects a child's output; resolves when it has exited and its pipes are closed. */
function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** The kvupgrade CLI as a user runs it, in its own process; `brokers` replaces the tests' Kafka. */
export function spawnKvupgrade(
  infra: InfraEnv,
  args: readonly string[],
  options: { readonly brokers?: string } = {},
): { child: ChildProcess; result: Promise<CliResult> } {
  const child = spawn(process.execPath, [join(ROOT, 'services/kvupgrade/main.ts'), ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      KAFKA_BROKERS: options.brokers ?? infra.KAFKA_BROKERS,
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, result: collect(child) };
}

export const runKvupgrade = (
  infra: InfraEnv,
  args: readonly string[],
  options: { readonly brokers?: string } = {},
): Promise<CliResult> => spawnKvupgrade(infra, args, options).result;

/** `npm --prefix <project> run -s kvupgrade -- <args>` run from `cwd`, as the README tells a user to. */
export function runKvupgradeThroughNpm(
  infra: InfraEnv,
  args: readonly string[],
  cwd: string,
): Promise<CliResult> {
  const child = spawn('npm', ['--prefix', ROOT, 'run', '-s', 'kvupgrade', '--', ...args], {
    cwd,
    env: { ...process.env, KAFKA_BROKERS: infra.KAFKA_BROKERS, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child);
}

/** The `replay` CLI on kv.upgrade-progress, as the issue asks: `replay kv.upgrade-progress --from-beginning --key <cluster>`. */
export function runReplay(infra: InfraEnv, key: string): Promise<CliResult> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'services/replay/main.ts'), TOPICS.upgradeProgress.name, '--from-beginning', '--key', key],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        KAFKA_BROKERS: infra.KAFKA_BROKERS,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return collect(child);
}

/** Every UpgradeProgress event of a cluster, in order, straight from the topic. */
export async function progressEvents(infra: InfraEnv, cluster: string): Promise<UpgradeProgress[]> {
  const bus = openTestBus(infra.KAFKA_BROKERS);
  try {
    await bus.ensureTopics([TOPICS.upgradeProgress]);
    return await readProgressEvents(bus, TOPICS.upgradeProgress.name, cluster);
  } finally {
    await bus.close();
  }
}

/** The transitions of the events, as `step[member]` strings: the story in short. */
export const story = (events: readonly UpgradeProgress[]): string[] =>
  events.filter((e) => e.kind === 'transition').map((e) => (e.member ? `${e.step}[${e.member}]` : e.step));

/** The story of one member's upgrade. */
export const memberUpgrade = (m: string): string[] => [
  `member-stopping[${m}]`,
  `member-stopped[${m}]`,
  `member-starting[${m}]`,
  `member-upgraded[${m}]`,
];

/** The story of a run whose 3.5 binary failed on the second member: both put back on 3.4. */
export const rolledBackAtSecondStart = (first: string, second: string): string[] => [
  'checks-passed',
  'snapshot-saved',
  ...memberUpgrade(first),
  ...memberUpgrade(second).slice(0, 3),
  `step-failed[${second}]`,
  `member-rolled-back[${second}]`,
  `member-rolled-back[${first}]`,
  'rollback-finished',
];

/** `run`, SIGKILLed the moment it announces it stops the second member: that member may be up or down. */
export function runKilledAtSecondStop(infra: InfraEnv, clusterFile: string): Promise<CliResult> {
  const { child, result } = spawnKvupgrade(infra, ['run', '--cluster', clusterFile]);
  let seen = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    seen += chunk.toString();
    if ((seen.match(/ member-stopping \[/g) ?? []).length >= 2) child.kill('SIGKILL');
  });
  return result;
}

/**
 * The real etcd 3.5.16 (`--version` as it is), except that the second member it is asked to start
 * gets a flag 3.5 does not know, so that start fails as a broken binary or configuration would (exit 2).
 */
export async function etcdFailingOnSecondMember(dir: string, real: string): Promise<string> {
  const script = join(dir, 'etcd-3.5-fails-second');
  const counter = join(dir, 'starts');
  await writeFile(
    script,
    `#!/bin/sh
case "$*" in *--name=*) ;; *) exec '${real}' "$@" ;; esac
n=$(( $(cat '${counter}' 2>/dev/null || echo 0) + 1 ))
echo "$n" > '${counter}'
if [ "$n" -eq 2 ]; then exec '${real}' "$@" --log-package-levels=etcdserver=DEBUG; fi
exec '${real}' "$@"
`,
  );
  await chmod(script, 0o755);
  return script;
}
