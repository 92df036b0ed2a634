// How fast a new rate limit configuration takes effect, against the real Redis and Kafka:
// 1. hot reload: a configuration file replaced (atomic rename) -> the first decision using its new limit;
// 2. broadcast: the same on the publishing instance of a fleet of three sharing one Kafka -> every
//    instance deciding with the new limit (and showing the same version in /rlconfig).
// Each is repeated BENCH_RELOADS times; decisions are sent back to back, one at a time per
// instance, so the figures are within one decision (about a millisecond) of the truth.
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { int, readSettings, str } from '../shared/settings.ts';
import { createRuntimeFolder } from '../test/helpers/ratelimit-runtime.ts';
import {
  descriptors,
  type RatelimitServer,
  startRatelimitServer,
  versionOf,
} from '../test/helpers/ratelimit-server.ts';

const settings = readSettings(
  {
    redisUrl: str('REDIS_URL', '127.0.0.1:6379', 'host:port'),
    kafkaBrokers: str('KAFKA_BROKERS', '127.0.0.1:9092', 'host:port list'),
    reloads: int('BENCH_RELOADS', 10, { min: 1, max: 100 }),
  },
  process.env,
);

const yaml = (limit: number): string => `domain: probe
descriptors:
  - key: probe
    rate_limit:
      unit: hour
      requests_per_unit: ${limit}
`;

const request = { domain: 'probe', descriptors: descriptors({ probe: 'bench' }) as never };

/** Decides on `server` until its answer carries `limit`; when that answer arrived, and the failures. */
async function untilLimit(server: RatelimitServer, limit: number): Promise<{ at: number; failures: number }> {
  let failures = 0;
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      const answer = await server.shouldRateLimit(request);
      if (answer.statuses[0]?.current_limit?.requests_per_unit === limit)
        return { at: performance.now(), failures };
    } catch {
      failures++;
    }
    if (performance.now() > deadline) throw new Error(`no decision with limit ${limit} within 30 s`);
  }
}

function summary(label: string, samples: readonly number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)]!;
  return `${label}: p50 ${p50.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (${samples.length} samples)`;
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const out = (line: string): void => void process.stdout.write(`${line}\n`);

out(
  `rate limit configuration benchmark: ${settings.reloads} changes each; ${availableParallelism()} cores, load average ${load()}`,
);

let limit = 1_000;
const common = { REDIS_URL: settings.redisUrl, CACHE_KEY_PREFIX: `bench-config-${process.pid}:` };

{
  const runtime = await createRuntimeFolder({ 'probe.yaml': yaml(limit) });
  const server = await startRatelimitServer({
    ...common,
    RUNTIME_ROOT: runtime.root,
    RUNTIME_SUBDIRECTORY: runtime.subdirectory,
  });
  try {
    await untilLimit(server, limit);
    const samples: number[] = [];
    let failures = 0;
    for (let i = 0; i < settings.reloads; i++) {
      limit++;
      await runtime.write('probe.yaml', yaml(limit));
      const replaced = performance.now();
      const seen = await untilLimit(server, limit);
      samples.push(seen.at - replaced);
      failures += seen.failures;
      await sleep(100);
    }
    out(`\n${summary('hot reload, file replaced -> first decision with the new limit', samples)}`);
    out(`  failed decisions during the reloads: ${failures}; load average ${load()}`);
  } finally {
    await server.stop();
    await runtime.cleanup();
  }
}

{
  const runtime = await createRuntimeFolder({ 'probe.yaml': yaml(limit) });
  const fleet = { ...common, KAFKA_BROKERS: settings.kafkaBrokers, CONFIG_KAFKA_KEY: `bench-${process.pid}` };
  const publisher = await startRatelimitServer({
    ...fleet,
    RUNTIME_ROOT: runtime.root,
    RUNTIME_SUBDIRECTORY: runtime.subdirectory,
    CONFIG_KAFKA_PUBLISH: 'true',
  });
  const followers = await Promise.all([
    startRatelimitServer({ ...fleet, CONFIG_TYPE: 'KAFKA' }),
    startRatelimitServer({ ...fleet, CONFIG_TYPE: 'KAFKA' }),
  ]);
  const instances = [publisher, ...followers];
  try {
    await Promise.all(instances.map((instance) => untilLimit(instance, limit)));
    const fleetWide: number[] = [];
    const publishToFollowers: number[] = [];
    let failures = 0;
    let versionMismatches = 0;
    for (let i = 0; i < settings.reloads; i++) {
      limit++;
      await runtime.write('probe.yaml', yaml(limit));
      const replaced = performance.now();
      const seen = await Promise.all(instances.map((instance) => untilLimit(instance, limit)));
      const [applied, ...followed] = seen.map((s) => s.at);
      fleetWide.push(Math.max(...seen.map((s) => s.at)) - replaced);
      publishToFollowers.push(Math.max(...followed) - applied!);
      failures += seen.reduce((sum, s) => sum + s.failures, 0);
      const versions = new Set(await Promise.all(instances.map(versionOf)));
      if (versions.size !== 1) versionMismatches++;
      await sleep(100);
    }
    out(
      `\n${summary('broadcast, file replaced on the publisher -> all three instances deciding with the new limit', fleetWide)}`,
    );
    out(`  ${summary('publisher deciding with it -> both followers deciding with it', publishToFollowers)}`);
    out(
      `  failed decisions: ${failures}; changes after which /rlconfig versions differed: ${versionMismatches}; load average ${load()}`,
    );
  } finally {
    await Promise.all(instances.map((instance) => instance.stop()));
    await runtime.cleanup();
  }
}
