// `npm start`: the whole product on one machine. Brings up the infrastructure (scripts/infra.sh),
// builds the services (dist/, scripts/build.ts), declares every topic, starts each service from the
// build as its own process, prints where everything listens once it all answers, and on Ctrl-C (or
// SIGTERM) stops the services, then the servers it started itself. Exits 1 when a service fails.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { experimentTopics } from '../services/experiment/common/bus-names.ts';
import { EXPERIMENT_NODE_OPTIONS } from '../services/experiment/node-options.ts';
import { readExperimentSettings } from '../services/experiment/settings.ts';
import { readRatelimitSettings } from '../services/ratelimit/settings/index.ts';
import { TOPICS } from '../shared/bus/index.ts';
import type { Env } from '../shared/settings.ts';
import { build, DIST } from './build.ts';
import { startInfra } from './infra-client.ts';
import { answers, portHolder } from './port-holder.ts';

const ROOT = join(import.meta.dirname, '..');

/** A port a service binds, with the setting that chooses it. */
interface Listener {
  readonly setting: string;
  readonly host: string;
  readonly port: number;
}

/** A browser or client on this machine reaches 0.0.0.0 through the loopback address. */
const reachable = (host: string): string => (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host);

/**
 * Every long-running service of the product; each reads its own settings from the environment,
 * on top of `defaults` (what suits one machine, where they differ from the service's own defaults).
 */
const SERVICES: ReadonlyArray<{
  name: string;
  entry: string;
  nodeOptions?: readonly string[];
  defaults?: Env;
  listeners: (env: Env) => Listener[];
  listens: (env: Env) => string;
}> = [
  {
    name: 'experiment',
    entry: 'services/experiment/main.js',
    nodeOptions: EXPERIMENT_NODE_OPTIONS,
    // One machine, one instance: it runs the experiments sent to it (`experiment run`, the page).
    defaults: { TRIAL_CONTROLLER: 'true' },
    listeners: (env) => {
      const s = readExperimentSettings(env);
      return [
        { setting: 'EXPERIMENT_GRPC_PORT', host: s.grpcHost, port: s.grpcPort },
        { setting: 'EXPERIMENT_METRICS_PORT', host: s.grpcHost, port: s.metricsPort },
        ...(s.http ? [{ setting: 'EXPERIMENT_HTTP_PORT', host: s.grpcHost, port: s.httpPort }] : []),
      ];
    },
    listens: (env) => {
      const s = readExperimentSettings(env);
      const host = reachable(s.grpcHost);
      const web = s.http ? `, web page and HTTP API http://${host}:${s.httpPort}/` : '';
      return `gRPC ${host}:${s.grpcPort} (Katib DBManager, Suggestion, EarlyStopping, health)${web}, metrics http://${host}:${s.metricsPort}/metrics, ${s.store} store`;
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
    listeners: (env) => {
      const s = readRatelimitSettings(env);
      return [
        { setting: 'GRPC_PORT', host: s.grpcHost, port: s.grpcPort },
        { setting: 'PORT', host: s.host, port: s.port },
        { setting: 'DEBUG_PORT', host: s.debugHost, port: s.debugPort },
      ];
    },
    listens: (env) => {
      const s = readRatelimitSettings(env);
      return `gRPC ${reachable(s.grpcHost)}:${s.grpcPort} (Envoy RLS v3, health), HTTP http://${reachable(s.host)}:${s.port}/json, debug http://${reachable(s.debugHost)}:${s.debugPort}/ (rlconfig, stats, metrics), config ${s.runtimeRoot}`;
    },
  },
];

const say = (line: string) => process.stdout.write(`${line}\n`);
const fail = (line: string) => process.stderr.write(`start: ${line}\n`);

let infra: ReturnType<typeof startInfra>;
try {
  // The tests start the product on their own servers.
  infra = startInfra(process.env.INFRA_PROFILE === 'test' ? 'test' : 'product');
} catch (error) {
  fail((error as Error).message);
  process.exit(1);
}
const env: Record<string, string> = { ...infra.env };
const envOf = (defaults: Env | undefined): Env => ({ ...defaults, ...env, ...process.env });

function giveUp(line: string): never {
  fail(line);
  infra.stopStarted();
  process.exit(1);
}

// A port already taken is named with its holder before anything starts.
for (const { name, defaults, listeners } of SERVICES) {
  for (const listener of listeners(envOf(defaults))) {
    if (listener.port === 0) continue;
    const holder = portHolder(listener.port);
    if (holder !== undefined)
      giveUp(
        `${name} cannot listen on ${listener.host}:${listener.port} (${listener.setting}): the port is held by ${holder}; stop it or set ${listener.setting}`,
      );
  }
}

try {
  build();
} catch (error) {
  giveUp((error as Error).message);
}

const topics = Object.values(TOPICS);
const declared = spawnSync(process.execPath, [join(ROOT, 'scripts', 'declare-topics.ts')], {
  env: { ...process.env, KAFKA_BROKERS: env.KAFKA_BROKERS },
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (declared.status !== 0) giveUp('declaring the topics failed (the error is above)');

const children = SERVICES.map((service) => ({
  ...service,
  child: spawn(process.execPath, [...(service.nodeOptions ?? []), join(DIST, service.entry)], {
    env: envOf(service.defaults),
    stdio: 'inherit',
  }) as ChildProcess,
}));

let stopping = false;
async function stop(reason: string, code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say(`\n${reason}: stopping the services`);
  await Promise.all(
    children.map(
      ({ name, child }) =>
        new Promise<void>((resolve) => {
          const done = () => {
            say(`  ${name}: stopped${child.exitCode ? ` (exit ${child.exitCode})` : ''}`);
            resolve();
          };
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', done);
          child.kill('SIGTERM');
        }),
    ),
  );
  const stopped = infra.stopStarted();
  const reused = ['kafka', 'redis', 'postgres', 'memcached'].filter((server) => !stopped.includes(server));
  say(
    `everything stopped: ${children.map((c) => c.name).join(', ')}${stopped.length > 0 ? `, ${stopped.join(', ')}` : ''}${
      reused.length > 0 ? ` (left running, not started by this command: ${reused.join(', ')})` : ''
    }`,
  );
  process.exit(code);
}
process.on('SIGINT', () => void stop('SIGINT', 0));
process.on('SIGTERM', () => void stop('SIGTERM', 0));

let ready = false;
for (const { name, child, listeners, defaults } of children) {
  child.on('exit', (code, signal) => {
    if (stopping) return;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!ready) {
      const taken = listeners(envOf(defaults))
        .map((l) => ({ ...l, holder: l.port === 0 ? undefined : portHolder(l.port) }))
        .filter((l) => l.holder !== undefined);
      const why = taken.map((l) => `${l.host}:${l.port} (${l.setting}) is held by ${l.holder}`).join('; ');
      fail(`${name} exited during start-up with ${how}${why ? `: ${why}` : ' (its log is above)'}`);
    } else {
      fail(`${name} exited with ${how}`);
    }
    void stop(`${name} exited`, 1);
  });
}

// The banner comes once every port answers, or start-up is given up after START_TIMEOUT_MS.
const START_TIMEOUT_MS = 120_000;
const deadline = Date.now() + START_TIMEOUT_MS;
const pending = children.flatMap(({ name, listeners, defaults }) =>
  listeners(envOf(defaults)).map((l) => ({ name, ...l })),
);
while (pending.length > 0 && !stopping) {
  if (Date.now() > deadline) {
    const late = pending.map((l) => `${l.name} ${l.host}:${l.port}`).join(', ');
    fail(`not listening after ${START_TIMEOUT_MS / 1000} s: ${late}`);
    await stop('start-up timeout', 1);
  }
  const answered = await Promise.all(pending.map((l) => answers(l.host, l.port)));
  for (let i = answered.length - 1; i >= 0; i--) if (answered[i]) pending.splice(i, 1);
  if (pending.length > 0) await sleep(200);
}
if (stopping) await new Promise(() => {});
ready = true;

say('');
say('backbone is running:');
// The experiment service's topics under its KAFKA_TOPIC_PREFIX, as it declares and uses them.
const experimentNames = new Set(Object.values(experimentTopics('')).map((t) => t.name));
const prefix = readExperimentSettings(envOf(undefined)).kafkaTopicPrefix;
const shownTopics = topics.map((t) => (experimentNames.has(t.name) ? prefix + t.name : t.name));
say(`  kafka       ${env.KAFKA_BROKERS}   topics: ${shownTopics.join(', ')} (+ .dlq)`);
say(`  redis       ${env.REDIS_URL}`);
say(`  postgres    ${env.POSTGRES_URL}`);
say(`  memcached   ${env.MEMCACHE_HOST_PORT}`);
say(`  etcd 3.4    ${env.ETCD34_BIN_DIR}`);
say(`  etcd 3.5    ${env.ETCD35_BIN_DIR}`);
for (const { name, listens, defaults } of SERVICES) say(`  ${name.padEnd(11)} ${listens(envOf(defaults))}`);
const experiment = readExperimentSettings(envOf(undefined));
if (experiment.http)
  say(`Experiments page: http://${reachable(experiment.grpcHost)}:${experiment.httpPort}/`);
say('Read any topic with `npm run -s replay -- <topic>`.');
say('Ctrl-C stops everything.');
// Keeps the process alive until a signal arrives.
setInterval(() => {}, 1 << 30);
