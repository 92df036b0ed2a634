// `npm start`: the whole product on one machine. Brings up the infrastructure (scripts/infra.sh),
// builds the services (dist/, scripts/build.ts), declares every topic, starts each service from the
// build as its own process, prints where everything listens, and on Ctrl-C (or SIGTERM) stops the
// services, then the servers it started itself.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { EXPERIMENT_NODE_OPTIONS } from '../services/experiment/node-options.ts';
import { readExperimentSettings } from '../services/experiment/settings.ts';
import { readRatelimitSettings } from '../services/ratelimit/settings/index.ts';
import { TOPICS } from '../shared/bus/topics.ts';
import type { Env } from '../shared/settings.ts';
import { build, DIST } from './build.ts';
import { startInfra } from './infra-client.ts';

const ROOT = join(import.meta.dirname, '..');

/**
 * Every long-running service of the product; each reads its own settings from the environment,
 * on top of `defaults` (what suits one machine, where they differ from the service's own defaults).
 */
const SERVICES: ReadonlyArray<{
  name: string;
  entry: string;
  nodeOptions?: readonly string[];
  defaults?: Env;
  listens: (env: Env) => string;
}> = [
  {
    name: 'experiment',
    entry: 'services/experiment/main.js',
    nodeOptions: EXPERIMENT_NODE_OPTIONS,
    listens: (env) => {
      const s = readExperimentSettings(env);
      const web = s.http ? `, web page and HTTP API http://${s.grpcHost}:${s.httpPort}/` : '';
      return `gRPC ${s.grpcHost}:${s.grpcPort} (Katib DBManager, Suggestion, EarlyStopping, health)${web}, metrics http://${s.grpcHost}:${s.metricsPort}/metrics, ${s.store} store`;
    },
  },
  {
    name: 'ratelimit',
    entry: 'services/ratelimit/main.js',
    defaults: {
      REDIS_SOCKET_TYPE: 'tcp',
      RUNTIME_ROOT: join(ROOT, 'services', 'ratelimit', 'example', 'current'),
      RUNTIME_SUBDIRECTORY: 'ratelimit',
      USE_STATSD: 'false',
    },
    listens: (env) => {
      const s = readRatelimitSettings(env);
      return `gRPC ${s.grpcHost}:${s.grpcPort} (Envoy RLS v3, health), HTTP http://${s.host}:${s.port}/json, debug http://${s.debugHost}:${s.debugPort}/ (rlconfig, stats, metrics), config ${s.runtimeRoot}`;
    },
  },
];

const say = (line: string) => process.stdout.write(`${line}\n`);

let infra: ReturnType<typeof startInfra>;
try {
  infra = startInfra();
} catch (error) {
  process.stderr.write(`start: ${(error as Error).message}\n`);
  process.exit(1);
}
const env: Record<string, string> = { ...infra.env };
try {
  build();
} catch (error) {
  infra.stopStarted();
  process.stderr.write(`start: ${(error as Error).message}\n`);
  process.exit(1);
}

const topics = Object.values(TOPICS);
const declared = spawnSync(process.execPath, [join(ROOT, 'scripts', 'declare-topics.ts')], {
  env: { ...process.env, KAFKA_BROKERS: env.KAFKA_BROKERS },
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (declared.status !== 0) process.exit(1);

const children: Array<{ name: string; child: ChildProcess }> = SERVICES.map(
  ({ name, entry, nodeOptions, defaults }) => ({
    name,
    child: spawn(process.execPath, [...(nodeOptions ?? []), join(DIST, entry)], {
      env: { ...defaults, ...env, ...process.env },
      stdio: 'inherit',
    }),
  }),
);

say('');
say('backbone is running:');
say(`  kafka       ${env.KAFKA_BROKERS}   topics: ${topics.map((t) => t.name).join(', ')} (+ .dlq)`);
say(`  redis       ${env.REDIS_URL}`);
say(`  postgres    ${env.POSTGRES_URL}`);
say(`  memcached   ${env.MEMCACHE_HOST_PORT}`);
say(`  etcd 3.4    ${env.ETCD34_BIN_DIR}`);
say(`  etcd 3.5    ${env.ETCD35_BIN_DIR}`);
for (const { name, listens, defaults } of SERVICES)
  say(`  ${name.padEnd(11)} ${listens({ ...defaults, ...env, ...process.env })}`);
const experiment = readExperimentSettings({ ...env, ...process.env });
if (experiment.http) say(`Experiments page: http://${experiment.grpcHost}:${experiment.httpPort}/`);
say('Read any topic with `npm run -s replay -- <topic>`.');
say('Ctrl-C stops everything.');

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  say(`\n${signal}: stopping services`);
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  infra.stopStarted();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
for (const { name, child } of children) {
  child.on('exit', (code) => {
    if (!stopping) {
      say(`${name} exited with code ${code}; stopping the rest`);
      void stop('service exit');
    }
  });
}
// Keeps the process alive until a signal arrives.
setInterval(() => {}, 1 << 30);
