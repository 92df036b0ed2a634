// The tests' three-broker Kafka (scripts/infra.sh, test profile; the bench profile when a bench runs
// with INFRA_PROFILE=bench): started on demand, with the means to lose a broker as an operator would
// see it (SIGKILL, or SIGSTOP for one that hangs) and bring it back.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Bus } from '../../shared/bus/index.ts';
import { openTestBus } from './kafka.ts';

const INFRA = join(import.meta.dirname, '..', '..', 'scripts', 'infra.sh');
const ENV = { ...process.env, INFRA_PROFILE: process.env.INFRA_PROFILE === 'bench' ? 'bench' : 'test' };
export const CLUSTER_NODES = [1, 2, 3] as const;

const infra = (...args: string[]): string =>
  execFileSync('bash', [INFRA, ...args], { encoding: 'utf8', env: ENV });

export interface KafkaCluster {
  /** Bootstrap list of all three brokers. */
  readonly brokers: string;
  /** A bus on the cluster for the test's own questions (close() closes it). */
  readonly bus: Bus;
  pidOf(node: number): number;
  /** SIGKILL: the broker is gone at once, its connections reset. */
  kill(node: number): void;
  /** SIGSTOP / SIGCONT: the broker keeps its connections but answers nothing. */
  pause(node: number): void;
  resume(node: number): void;
  /** Starts every node that is not running (a killed one comes back with its data). */
  startMissing(): void;
  /** The node that leads the most partitions of the topic. */
  busiestLeader(topic: string): Promise<number>;
  /** Resolves once every partition of the topic has all three replicas in sync. */
  waitForFullIsr(topic: string, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the cluster (a test file using it holds its lock: test/integration/exclusive-files.ts). */
export function startKafkaCluster(): KafkaCluster {
  const started = spawnSync('bash', [INFRA, 'up', 'kafka-cluster'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: ENV,
  });
  if (started.status !== 0)
    throw new Error('`infra.sh up kafka-cluster` failed: its message above names the node and log');
  const brokers = /^KAFKA_CLUSTER_BROKERS=(.*)$/m.exec(infra('env'))?.[1] ?? '';
  const bus = openTestBus(brokers);
  const pidOf = (node: number) => Number(infra('pid', 'kafka-cluster', String(node)).trim());
  const signal = (node: number, name: NodeJS.Signals) => process.kill(pidOf(node), name);
  const partitionsOf = (topic: string) => bus.client.partitionStates(topic);
  return {
    brokers,
    bus,
    pidOf,
    kill: (node) => signal(node, 'SIGKILL'),
    pause: (node) => signal(node, 'SIGSTOP'),
    resume: (node) => signal(node, 'SIGCONT'),
    startMissing: () => {
      const run = spawnSync('bash', [INFRA, 'up', 'kafka-cluster'], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: ENV,
      });
      if (run.status !== 0) throw new Error('restarting the cluster node failed');
    },
    async busiestLeader(topic) {
      const counts = new Map<number, number>();
      for (const p of await partitionsOf(topic)) counts.set(p.leader, (counts.get(p.leader) ?? 0) + 1);
      return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 1;
    },
    async waitForFullIsr(topic, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const partitions = await partitionsOf(topic).catch(() => []);
        if (partitions.length > 0 && partitions.every((p) => p.isr.length === 3)) return;
        if (Date.now() > deadline)
          throw new Error(`${topic}: replicas not all in sync after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    close: () => bus.close(),
  };
}

/** Stops the cluster (the tests' servers otherwise stay for the run; INFRA_KEEP=1 keeps it too). */
export function stopKafkaCluster(): void {
  if (process.env.INFRA_KEEP === '1') return;
  spawnSync('bash', [INFRA, 'down', 'kafka-cluster'], { stdio: ['ignore', 'ignore', 'inherit'], env: ENV });
}
