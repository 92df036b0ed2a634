import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

const ROOT = join(import.meta.dirname, '..', '..');
const INFRA = join(ROOT, 'scripts', 'infra.sh');
const SERVERS = ['kafka', 'redis', 'postgres', 'memcached'] as const;

export interface InfraEnv {
  KAFKA_BROKERS: string;
  REDIS_URL: string;
  MEMCACHE_HOST_PORT: string;
  POSTGRES_URL: string;
  ETCD34_BIN_DIR: string;
  ETCD35_BIN_DIR: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    infra: InfraEnv;
  }
}

function runningServers(): Set<string> {
  const status = execFileSync('bash', [INFRA, 'status'], { encoding: 'utf8' });
  return new Set(
    status
      .split('\n')
      .map((line) => line.split(/\s+/))
      .filter(([name, state]) => state === 'up' && SERVERS.includes(name as (typeof SERVERS)[number]))
      .map(([name]) => name!),
  );
}

/**
 * Starts (or reuses) the real servers through the project's own script, and stops at the end the
 * ones it had to start. INFRA_KEEP=1 leaves them running for the next run.
 */
export default function setup(project: TestProject): () => void {
  const before = runningServers();
  const stopStarted = () => {
    const started = SERVERS.filter((s) => !before.has(s));
    if (started.length > 0)
      spawnSync('bash', [INFRA, 'down', ...started], { stdio: ['ignore', 'inherit', 'inherit'] });
  };
  const up = spawnSync('bash', [INFRA, 'up'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (up.status !== 0) {
    stopStarted();
    throw new Error(
      'integration tests need real servers and `scripts/infra.sh up` failed: its message above names the server and its log',
    );
  }
  const env = Object.fromEntries(
    execFileSync('bash', [INFRA, 'env'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  ) as unknown as InfraEnv;
  project.provide('infra', env);
  return () => {
    if (process.env.INFRA_KEEP !== '1') stopStarted();
  };
}
