// The project's infrastructure script, as `npm start` and the integration tests drive it: bring
// the servers up, learn their addresses, and stop only the servers this run had to start.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const INFRA = join(import.meta.dirname, 'infra.sh');
const SERVERS = ['kafka', 'redis', 'postgres', 'memcached'] as const;

/** What `infra.sh env` prints: how clients reach each server. */
export interface InfraEnv {
  KAFKA_BROKERS: string;
  REDIS_URL: string;
  MEMCACHE_HOST_PORT: string;
  POSTGRES_URL: string;
  /** The three brokers of `infra.sh up kafka-cluster` (started only by the tests that need it). */
  KAFKA_CLUSTER_BROKERS: string;
  ETCD34_BIN_DIR: string;
  ETCD35_BIN_DIR: string;
  /** `version=folder` of every etcd release in the cache, comma separated (3.4.23 ... 3.7.3). */
  ETCD_RELEASES: string;
}

export interface InfraSession {
  readonly env: InfraEnv;
  /** Stops the servers that were not answering before `startInfra` (never a reused one); returns their names. */
  stopStarted(): string[];
}

/**
 * `product` is what `npm start` runs; `test` is the tests' own set (other ports, other data), so
 * a test run never shows in the product nor stops it.
 */
export type InfraProfile = 'product' | 'test';

function runningServers(run: (...args: string[]) => string): Set<string> {
  return new Set(
    run('status')
      .split('\n')
      .map((line) => line.split(/\s+/))
      .filter(([name, state]) => state === 'up' && SERVERS.includes(name as (typeof SERVERS)[number]))
      .map(([name]) => name!),
  );
}

/** Runs `infra.sh up` with its output on this terminal; throws if a server cannot start. */
export function startInfra(profile: InfraProfile = 'product'): InfraSession {
  const env = { ...process.env, INFRA_PROFILE: profile };
  const run = (...args: string[]) => execFileSync('bash', [INFRA, ...args], { encoding: 'utf8', env });
  const before = runningServers(run);
  const stopStarted = () => {
    const started = SERVERS.filter((s) => !before.has(s));
    if (started.length > 0)
      spawnSync('bash', [INFRA, 'down', ...started], { stdio: ['ignore', 'inherit', 'inherit'], env });
    return started;
  };
  if (spawnSync('bash', [INFRA, 'up'], { stdio: ['ignore', 'inherit', 'inherit'], env }).status !== 0) {
    stopStarted();
    throw new Error('`scripts/infra.sh up` failed: its message above names the server and its log');
  }
  const addresses = Object.fromEntries(
    run('env')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  ) as unknown as InfraEnv;
  return { env: addresses, stopStarted };
}
