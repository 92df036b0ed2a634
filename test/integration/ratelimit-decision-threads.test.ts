// RATELIMIT_WORKERS: one instance, one process, several decision units (the main thread's and
// worker threads) behind the same gRPC and HTTP ports; one count across them (the shared Redis),
// every configuration reaching every one of them, /stats and /metrics for the whole instance, a
// thread that dies replaced, SIGTERM draining them all.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRuntimeFolder, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import {
  awayFromMinuteEdge,
  countdown,
  descriptors,
  logged,
  type RatelimitServer,
  random,
  startRatelimitServer,
  statsOf,
} from '../helpers/ratelimit-server.ts';
import { waitFor } from '../helpers/wait-for.ts';

const config = (domain: string, perMinute: number) => `domain: ${domain}
descriptors:
  - key: minute
    rate_limit:
      unit: minute
      requests_per_unit: ${perMinute}
`;

/** One call on a connection of its own, so that calls spread over the decision units. */
const callOnNewConnection = (server: RatelimitServer, domain: string, value: string) =>
  server.shouldRateLimitOnNewConnection({ domain, descriptors: descriptors({ minute: value }) as never });

/** A line of each decision unit (`ratelimit.worker.<unit>.<field>`), by unit. */
const perUnit = (stats: Map<string, number>, field: string): Map<number, number> =>
  new Map(
    [...stats]
      .map(([name, value]) => [/^ratelimit\.worker\.(\d+)\.(.+)$/.exec(name), value] as const)
      .filter(([match]) => match?.[2] === field)
      .map(([match, value]) => [Number(match![1]), value]),
  );

describe('ratelimit with two decision units', () => {
  const infra = inject('infra');
  let runtime: RuntimeFolder;
  let server: RatelimitServer;
  let crashDir: string;
  const domain = `workers${random()}`;

  beforeAll(async () => {
    runtime = await createRuntimeFolder({ 'workers.yaml': config(domain, 5) });
    crashDir = await mkdtemp(join(tmpdir(), 'ratelimit-crash-'));
    server = await startRatelimitServer(
      {
        RATELIMIT_WORKERS: '2',
        REDIS_URL: infra.REDIS_URL,
        RUNTIME_ROOT: runtime.root,
        RUNTIME_SUBDIRECTORY: runtime.subdirectory,
        CACHE_KEY_PREFIX: `workers-${random()}:`,
        RATELIMIT_TEST_CRASH_DIR: crashDir,
      },
      { nodeOptions: ['--import', './test/helpers/ratelimit-thread-crash.ts'] },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await runtime?.cleanup();
    if (crashDir) await rm(crashDir, { recursive: true, force: true });
  });

  it('both decision units decide, one count across them, /stats sums the instance', async () => {
    const before = await statsOf(server);
    expect(before.get('ratelimit.workers')).toBe(2);
    await awayFromMinuteEdge(10_000);
    const value = random();
    const seen: Array<[string, number]> = [];
    // New connections land on either unit at random: call until both have answered.
    await waitFor('both decision units to answer', async () => {
      const reply = await callOnNewConnection(server, domain, value);
      seen.push([reply.overall_code, reply.statuses[0]!.limit_remaining]);
      const requests = [...perUnit(await statsOf(server), 'total_requests').values()];
      return seen.length >= 8 && requests.length === 2 && requests.every((n) => n > 0);
    });
    expect(seen).toEqual(countdown(5, seen.length));
    const after = await statsOf(server);
    const total = 'ratelimit_server.ShouldRateLimit.total_requests';
    expect((after.get(total) ?? 0) - (before.get(total) ?? 0)).toBe(seen.length);
    expect(after.get(`ratelimit.service.rate_limit.${domain}.minute.over_limit`)).toBe(seen.length - 5);
    // Loaded once by the main thread, not once per decision unit.
    expect(after.get('ratelimit.service.config_load_success')).toBe(1);
    const metrics = await server.debug('/metrics');
    expect(metrics).toMatch(
      new RegExp(
        `ratelimit_service_rate_limit_over_limit\\{[^}]*domain="${domain}"[^}]*\\} ${seen.length - 5}\\n`,
      ),
    );
    // One instance applies one configuration, however many units hold it.
    expect(metrics).toMatch(/^ratelimit_config_version_info\{version="[0-9a-f]+",service="ratelimit"\} 1$/m);
    // Every unit's response times in one histogram, and every unit's Redis round trips.
    const count =
      /^ratelimit_service_response_time_seconds_count\{grpc_method="ShouldRateLimit",service="ratelimit"\} (\d+)$/m.exec(
        metrics,
      );
    expect(Number(count?.[1])).toBe(after.get(total));
    expect(metrics).toMatch(
      /^ratelimit_service_response_time_seconds_bucket\{le="\+Inf",grpc_method="ShouldRateLimit",service="ratelimit"\} \d+$/m,
    );
    const roundTrips = Number(
      /^ratelimit_redis_round_trips\{service="ratelimit"\} (\d+)$/m.exec(metrics)?.[1],
    );
    expect(roundTrips).toBeGreaterThanOrEqual(seen.length);
  });

  it('a new configuration reaches every decision unit', async () => {
    const next = `${domain}b`;
    await runtime.write('next.yaml', config(next, 1));
    await waitFor('the main thread to load the new file', async () =>
      (await server.debug('/rlconfig')).includes(next),
    );
    const before = perUnit(await statsOf(server), 'total_requests');
    await waitFor('both decision units to answer by the new configuration', async () => {
      const reply = await callOnNewConnection(server, next, random());
      expect([reply.overall_code, reply.statuses[0]!.current_limit?.requests_per_unit]).toEqual(['OK', 1]);
      const now = perUnit(await statsOf(server), 'total_requests');
      return [...before].every(([unit, n]) => (now.get(unit) ?? 0) > n);
    });
  });

  it('a decision thread that dies is replaced, and the new one has the configuration in force', async () => {
    const threads = perUnit(await statsOf(server), 'thread_id');
    const [victimUnit, victim] = [...threads].find(([unit]) => unit !== 0)!;
    await writeFile(join(crashDir, `crash-${victim}`), '');
    const replacement = await waitFor('a replacement decision thread', async () => {
      const now = perUnit(await statsOf(server), 'thread_id');
      return now.size === 2 && !now.has(victimUnit) && [...now].find(([unit]) => unit !== 0)![0];
    });
    await logged(server, `decision thread ${victim} crashed on purpose`);
    // The replacement answers with the newest configuration (the main thread handed it over).
    await waitFor('the replacement to answer decisions', async () => {
      const reply = await callOnNewConnection(server, `${domain}b`, random());
      expect(reply.statuses[0]!.current_limit?.requests_per_unit).toBe(1);
      return (perUnit(await statsOf(server), 'total_requests').get(replacement) ?? 0) > 0;
    });
  });

  it('runs as one process, started again with its node options and MALLOC_ARENA_MAX (same pid)', async () => {
    const cmdline = (await readFile(`/proc/${server.pid}/cmdline`, 'utf8')).split('\0');
    expect(cmdline).toEqual(expect.arrayContaining(['--max-semi-space-size=4', '--heap-growing-percent=20']));
    expect((await readFile(`/proc/${server.pid}/environ`, 'utf8')).split('\0')).toContain(
      'MALLOC_ARENA_MAX=2',
    );
    const threads = Number(
      /^Threads:\s+(\d+)$/m.exec(await readFile(`/proc/${server.pid}/status`, 'utf8'))?.[1],
    );
    expect(threads).toBeGreaterThan(2);
  });

  it('SIGTERM drains every decision unit and the instance exits 0', async () => {
    expect(perUnit(await statsOf(server), 'thread_id').size).toBe(2);
    expect(await server.stop()).toBe(0);
    expect(server.output()).not.toMatch(/level=(error|fatal)[^\n]*(stop|drain)/);
  });
});
