// RATELIMIT_WORKERS: one instance, several decision processes behind the same gRPC, HTTP and debug
// ports; one count across them (the shared Redis), every configuration reaching every one of them,
// /stats and /metrics for the whole instance, SIGTERM draining them all.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRuntimeFolder, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import {
  awayFromMinuteEdge,
  countdown,
  descriptors,
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

/** One call on a connection of its own, so that calls spread over the decision processes. */
const callOnNewConnection = (server: RatelimitServer, domain: string, value: string) =>
  server.shouldRateLimitOnNewConnection({ domain, descriptors: descriptors({ minute: value }) as never });

const perProcess = (stats: Map<string, number>, field: string): number[] =>
  [...stats]
    .filter(([name]) => /^ratelimit\.worker\.\d+\./.test(name) && name.endsWith(`.${field}`))
    .map(([, v]) => v);

describe('ratelimit with two decision processes', () => {
  const infra = inject('infra');
  let runtime: RuntimeFolder;
  let server: RatelimitServer;
  const domain = `workers${random()}`;

  beforeAll(async () => {
    runtime = await createRuntimeFolder({ 'workers.yaml': config(domain, 5) });
    server = await startRatelimitServer({
      RATELIMIT_WORKERS: '2',
      REDIS_URL: infra.REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      CACHE_KEY_PREFIX: `workers-${random()}:`,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await runtime?.cleanup();
  });

  it('both decision processes decide, one count across them, /stats sums the instance', async () => {
    const before = await statsOf(server);
    expect(before.get('ratelimit.workers')).toBe(2);
    await awayFromMinuteEdge();
    const value = random();
    const seen: Array<[string, number]> = [];
    for (let i = 0; i < 8; i++) {
      const reply = await callOnNewConnection(server, domain, value);
      seen.push([reply.overall_code, reply.statuses[0]!.limit_remaining]);
    }
    expect(seen).toEqual(countdown(5, 8));
    const after = await statsOf(server);
    const requests = perProcess(after, 'total_requests');
    expect(requests).toHaveLength(2);
    expect(requests.every((n) => n > 0)).toBe(true);
    const total = 'ratelimit_server.ShouldRateLimit.total_requests';
    expect((after.get(total) ?? 0) - (before.get(total) ?? 0)).toBe(8);
    expect(after.get(`ratelimit.service.rate_limit.${domain}.minute.over_limit`)).toBe(3);
    // Loaded once by the primary, not once per decision process.
    expect(after.get('ratelimit.service.config_load_success')).toBe(1);
    const metrics = await server.debug('/metrics');
    expect(metrics).toMatch(
      new RegExp(`ratelimit_service_rate_limit_over_limit\\{[^}]*domain="${domain}"[^}]*\\} 3`),
    );
  });

  it('a new configuration reaches every decision process', async () => {
    const next = `${domain}b`;
    await runtime.write('next.yaml', config(next, 1));
    await waitFor('the primary to load the new file', async () =>
      (await server.debug('/rlconfig')).includes(next),
    );
    await awayFromMinuteEdge();
    // Every call on a new connection: both decision processes answer, and each knows the new domain's limit.
    const replies = [];
    for (let i = 0; i < 10; i++) replies.push(await callOnNewConnection(server, next, random()));
    expect(replies.map((r) => [r.overall_code, r.statuses[0]!.current_limit?.requests_per_unit])).toEqual(
      replies.map(() => ['OK', 1]),
    );
    expect(perProcess(await statsOf(server), 'total_requests').every((n) => n >= 5)).toBe(true);
  });

  it('a decision process that dies is replaced, and the new one has the configuration in force', async () => {
    const [victim, survivor] = perProcess(await statsOf(server), 'pid');
    process.kill(victim!, 'SIGKILL');
    const pids = await waitFor('a replacement decision process', async () => {
      const now = perProcess(await statsOf(server), 'pid');
      return now.length === 2 && !now.includes(victim!) && now;
    });
    expect(pids).toContain(survivor);
    // Both answer with the newest configuration (the replacement got it from the primary).
    await awayFromMinuteEdge();
    const next = `${domain}b`;
    await waitFor('the replacement to answer decisions', async () => {
      const reply = await callOnNewConnection(server, next, random());
      expect(reply.statuses[0]!.current_limit?.requests_per_unit).toBe(1);
      const stats = await statsOf(server);
      const served = [...stats].filter(
        ([name, value]) => /^ratelimit\.worker\.\d+\.total_requests$/.test(name) && value > 0,
      );
      return served.length === 2;
    });
  });

  it('SIGTERM drains every decision process and the instance exits 0', async () => {
    const pids = perProcess(await statsOf(server), 'pid');
    expect(pids).toHaveLength(2);
    expect(await server.stop()).toBe(0);
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(pids.filter(alive)).toEqual([]);
  });
});
