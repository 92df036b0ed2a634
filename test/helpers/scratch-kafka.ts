// A Kafka broker of its own for one test: a fresh data folder and free ports, started and stopped
// through the project's infrastructure script (scripts/infra.sh with INFRA_HOME and
// INFRA_PORT_SHIFT), so its topics and consumer groups do not exist until a service creates them.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './experiment-server.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const INFRA = join(ROOT, 'scripts', 'infra.sh');

export interface ScratchKafka {
  readonly brokers: string;
  stop(): void;
}

const isFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A port shift whose broker (9092 + shift) and controller (9093 + shift) ports are both free now. */
async function freeShift(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port > 9092 && port + 1 < 65536 && (await isFree(port + 1))) return port - 9092;
  }
}

export async function startScratchKafka(): Promise<ScratchKafka> {
  const home = mkdtempSync(join(tmpdir(), 'scratch-kafka-'));
  const env = {
    ...process.env,
    INFRA_PROFILE: 'test',
    INFRA_HOME: home,
    INFRA_PORT_SHIFT: String(await freeShift()),
    INFRA_CACHE: process.env.INFRA_CACHE ?? join(ROOT, '.infra', 'cache'),
  };
  const up = spawnSync('bash', [INFRA, 'up', 'kafka'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
    encoding: 'utf8',
  });
  const stop = () => {
    spawnSync('bash', [INFRA, 'down', 'kafka'], { stdio: 'ignore', env });
    rmSync(home, { recursive: true, force: true });
  };
  if (up.status !== 0) {
    stop();
    throw new Error(`a scratch Kafka broker did not start: ${up.stderr}`);
  }
  const brokers = /^KAFKA_BROKERS=(.*)$/m.exec(
    execFileSync('bash', [INFRA, 'env'], { env, encoding: 'utf8' }),
  )?.[1];
  if (!brokers) {
    stop();
    throw new Error('infra.sh env named no KAFKA_BROKERS');
  }
  return { brokers, stop };
}
