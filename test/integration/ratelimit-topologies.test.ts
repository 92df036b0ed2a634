// Every counter-store topology against real servers the test starts and stops itself: Redis
// sentinel (with a failover under load), cluster (with a resharding), TLS with client-certificate
// verification and AUTH (password, ACL user), the per-second Redis, memcached nodes listed or found
// through SRV records from a real DNS server (dnsmasq), and a single Redis stopped under load.
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Certificates,
  type Child,
  type DnsServer,
  makeCertificates,
  memcachedGet,
  type RedisCluster,
  type RedisServer,
  redisCli,
  type SentinelSet,
  startDnsmasq,
  startMemcached,
  startRedis,
  startRedisCluster,
  startSentinelSet,
  startTlsRedis,
} from '../helpers/counter-topologies.ts';
import { decisionLoop, stopRedisUnderDecisions } from '../helpers/faults/ratelimit-redis.ts';
import { createRuntimeFolder, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import {
  awayFromMinuteEdge,
  countdown,
  descriptors,
  failedStart,
  inOneMinute,
  inOneSecond,
  type RatelimitServer,
  random,
  startRatelimitServer,
} from '../helpers/ratelimit-server.ts';
import { waitFor } from '../helpers/wait-for.ts';

const CONFIG = `domain: topo
descriptors:
  - key: minute
    rate_limit:
      unit: minute
      requests_per_unit: 5
  - key: second
    rate_limit:
      unit: second
      requests_per_unit: 1000
  - key: hour
    rate_limit:
      unit: hour
      requests_per_unit: 100000000
`;

const windowStart = (seconds: number): number => Math.floor(Date.now() / 1000 / seconds) * seconds;
const keyOf = (prefix: string, key: string, value: string, seconds: number): string =>
  `${prefix}topo_${key}_${value}_${windowStart(seconds)}`;

/** Six calls on one `minute` value: 5 OK with remaining 4..0, then OVER_LIMIT. */
async function expectMinuteLimit(server: RatelimitServer, value: string): Promise<void> {
  let attempt = 0;
  await inOneMinute(async () => {
    // A value of its own each attempt: a counter begun in the minute before is not this one.
    const current = attempt++ === 0 ? value : `${value}-${attempt}`;
    const seen: Array<[string, number]> = [];
    for (let i = 0; i < 6; i++) {
      const reply = await server.shouldRateLimit({
        domain: 'topo',
        descriptors: descriptors({ minute: current }) as never,
      });
      seen.push([reply.overall_code, reply.statuses[0]!.limit_remaining]);
    }
    expect(seen).toEqual(countdown(5, 6));
  });
}

describe('ratelimit counter-store topologies on real servers', () => {
  let runtime: RuntimeFolder;
  beforeAll(async () => {
    runtime = await createRuntimeFolder({ 'topo.yaml': CONFIG });
  });
  afterAll(async () => runtime?.cleanup());
  const configEnv = () => ({ RUNTIME_ROOT: runtime.root, RUNTIME_SUBDIRECTORY: runtime.subdirectory });

  describe('Redis sentinel (one master, one replica, three sentinels with a password)', () => {
    let set: SentinelSet;
    let perSecond: RedisServer;
    let server: RatelimitServer;
    const prefix = `sentinel-${random()}:`;
    beforeAll(async () => {
      set = await startSentinelSet('rlmaster');
      perSecond = await startRedis();
      server = await startRatelimitServer({
        ...configEnv(),
        REDIS_TYPE: 'sentinel',
        REDIS_URL: `rlmaster,${set.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}`,
        REDIS_SENTINEL_AUTH: set.sentinelPassword,
        REDIS_PERSECOND: 'true',
        REDIS_PERSECOND_SOCKET_TYPE: 'tcp',
        REDIS_PERSECOND_URL: `127.0.0.1:${perSecond.port}`,
        CACHE_KEY_PREFIX: prefix,
      });
    });
    afterAll(async () => {
      await server?.stop();
      await perSecond?.stop();
      await set?.stop();
    });

    it('counts on the master the sentinels name, SECOND limits on the per-second Redis', async () => {
      const value = random();
      await expectMinuteLimit(server, value);
      expect(await set.master.cli('GET', keyOf(prefix, 'minute', value, 60))).toBe('6');
      await inOneSecond(async () => {
        const second = random();
        await server.shouldRateLimit({ domain: 'topo', descriptors: descriptors({ second }) as never });
        const secondKey = keyOf(prefix, 'second', second, 1);
        expect([await perSecond.cli('EXISTS', secondKey), await set.master.cli('EXISTS', secondKey)]).toEqual(
          ['1', '0'],
        );
      });
    });

    it('a wrong REDIS_SENTINEL_AUTH fails at start naming the sentinels', async () => {
      const failed = await failedStart(
        {
          ...configEnv(),
          REDIS_TYPE: 'sentinel',
          REDIS_URL: `rlmaster,127.0.0.1:${set.sentinelPorts[0]}`,
          REDIS_SENTINEL_AUTH: 'not-the-password',
          REDIS_STARTUP_MAX_ELAPSED_TIME: '3s',
        },
        { readyTimeoutMs: 20_000 },
      );
      expect(failed).toMatch(/rlmaster|sentinel/i);
      expect(failed).toMatch(/exited with code 1/);
    });

    it('a failover while a loop decides: errors only during the switch, then decisions on the new master', async () => {
      const loop = decisionLoop(server);
      await sleep(500);
      const started = performance.now();
      const newPort = await set.failover();
      const switched = performance.now();
      // Decide for 2 more seconds on the new master.
      await sleep(2_000);
      await loop.stop();
      const result = { ...loop, ok: loop.okTimes.length };
      const lastError = result.errors.at(-1)?.at ?? started;
      const firstOkAfterErrors = result.okTimes.find((t) => t > lastError);
      process.stdout.write(
        `sentinel failover: ${result.errors.length} errors over ${(result.errors.length > 0 ? lastError - result.errors[0]!.at : 0).toFixed(0)} ms ` +
          `(the new master named and the old one a replica after ${(switched - started).toFixed(0)} ms), ${result.ok} decisions OK\n`,
      );
      expect(result.errors.every((e) => e.at >= started - 5)).toBe(true);
      expect(result.okTimes.filter((t) => t > switched + 1_000).length).toBeGreaterThan(10);
      expect(firstOkAfterErrors).toBeDefined();
      // The new master is the one counting now.
      const value = random();
      await expectMinuteLimit(server, value);
      expect(await redisCli(newPort, ['GET', keyOf(prefix, 'minute', value, 60)])).toBe('6');
    });
  });

  describe('Redis cluster (three masters), SECOND limits on a second cluster', () => {
    let cluster: RedisCluster;
    let perSecond: RedisCluster;
    let server: RatelimitServer;
    const prefix = `cluster-${random()}:`;
    beforeAll(async () => {
      cluster = await startRedisCluster();
      perSecond = await startRedisCluster();
      server = await startRatelimitServer({
        ...configEnv(),
        REDIS_TYPE: 'cluster',
        REDIS_URL: cluster.url,
        REDIS_PERSECOND: 'true',
        REDIS_PERSECOND_TYPE: 'cluster',
        REDIS_PERSECOND_URL: perSecond.url,
        CACHE_KEY_PREFIX: prefix,
      });
    });
    afterAll(async () => {
      await server?.stop();
      await perSecond?.stop();
      await cluster?.stop();
    });

    it('counts SECOND limits on the per-second cluster, on the master that owns the key’s slot', async () => {
      // The counter lives one second: read it at once, on the owner of its slot in each cluster.
      await inOneSecond(async () => {
        const second = random();
        await server.shouldRateLimit({ domain: 'topo', descriptors: descriptors({ second }) as never });
        const key = keyOf(prefix, 'second', second, 1);
        const owner = await perSecond.ownerOf(key);
        const mainOwner = await cluster.ownerOf(key);
        expect([await owner.cli('EXISTS', key), await mainOwner.cli('EXISTS', key)]).toEqual(['1', '0']);
      });
    });

    it('spreads keys over the masters and counts each right, several keys in one decision', async () => {
      await inOneMinute(async () => {
        // Twelve random values miss one of the three masters about one time in 40: drawn again until
        // their keys cover all three.
        const portsOf = (values: string[]) =>
          Promise.all(values.map(async (v) => (await cluster.ownerOf(keyOf(prefix, 'minute', v, 60))).port));
        let values = Array.from({ length: 12 }, random);
        while (new Set(await portsOf(values)).size < 3) values = Array.from({ length: 12 }, random);
        for (let round = 0; round < 3; round++) {
          const reply = await server.shouldRateLimit({
            domain: 'topo',
            descriptors: descriptors(...values.map((v) => ({ minute: v }))) as never,
          });
          expect(reply.statuses.map((s) => s.limit_remaining)).toEqual(values.map(() => 4 - round));
        }
        const owners = new Set<number>();
        for (const value of values) {
          const key = keyOf(prefix, 'minute', value, 60);
          const owner = await cluster.ownerOf(key);
          owners.add(owner.port);
          expect(await owner.cli('GET', key)).toBe('3');
        }
        expect(owners.size).toBe(3);
      });
    });

    it('follows MOVED after the key’s slot is resharded to another master', async () => {
      const value = random();
      // The key names the minute's window: taken after the wait that may move into the next one.
      await awayFromMinuteEdge(10_000);
      const key = keyOf(prefix, 'minute', value, 60);
      for (let i = 0; i < 2; i++)
        await server.shouldRateLimit({
          domain: 'topo',
          descriptors: descriptors({ minute: value }) as never,
        });
      const { from, to } = await cluster.moveSlotOf(key);
      expect(from.port).not.toBe(to.port);
      const reply = await server.shouldRateLimit({
        domain: 'topo',
        descriptors: descriptors({ minute: value }) as never,
      });
      expect([reply.overall_code, reply.statuses[0]!.limit_remaining]).toEqual(['OK', 2]);
      expect(await to.cli('GET', key)).toBe('3');
      expect(await from.cli('EXISTS', key)).toMatch(/^MOVED /);
    });
  });

  describe('Redis TLS with client certificates, and AUTH', () => {
    let certs: Certificates;
    let main: Child;
    let perSecond: Child;
    const auth = { password: `pw-${random()}`, user: 'ratelimiter', userPassword: `acl-${random()}` };
    beforeAll(async () => {
      certs = await makeCertificates();
      main = await startTlsRedis(certs, auth);
      perSecond = await startTlsRedis(certs, auth);
    });
    afterAll(async () => {
      await main?.stop();
      await perSecond?.stop();
      await certs?.cleanup();
    });
    const tlsEnv = (overrides: Record<string, string> = {}) => ({
      ...configEnv(),
      REDIS_URL: `127.0.0.1:${main.port}`,
      REDIS_TLS: 'true',
      REDIS_TLS_CACERT: certs.ca,
      REDIS_TLS_CLIENT_CERT: certs.clientCert,
      REDIS_TLS_CLIENT_KEY: certs.clientKey,
      REDIS_AUTH: auth.password,
      ...overrides,
    });

    it.each([
      ['password', () => auth.password],
      ['user:password (ACL user)', () => `${auth.user}:${auth.userPassword}`],
    ])(
      'decides over TLS with REDIS_AUTH as %s, SECOND limits on the per-second TLS Redis',
      async (_how, secret) => {
        const prefix = `tls-${random()}:`;
        const server = await startRatelimitServer(
          tlsEnv({
            REDIS_AUTH: secret(),
            CACHE_KEY_PREFIX: prefix,
            REDIS_PERSECOND: 'true',
            REDIS_PERSECOND_SOCKET_TYPE: 'tcp',
            REDIS_PERSECOND_URL: `127.0.0.1:${perSecond.port}`,
            REDIS_PERSECOND_TLS: 'true',
            REDIS_PERSECOND_AUTH: `${auth.user}:${auth.userPassword}`,
          }),
        );
        try {
          await expectMinuteLimit(server, random());
          const reply = await server.shouldRateLimit({
            domain: 'topo',
            descriptors: descriptors({ second: random() }, { minute: random() }) as never,
          });
          expect(reply.statuses.map((s) => s.code)).toEqual(['OK', 'OK']);
        } finally {
          await server.stop();
        }
      },
    );

    it('a wrong password fails at start with a clear error', async () => {
      const message = await failedStart(tlsEnv({ REDIS_AUTH: 'wrong' }), { readyTimeoutMs: 20_000 });
      expect(message).toMatch(/authentication refused.*REDIS_AUTH/);
      expect(message).toMatch(/WRONGPASS|invalid password/);
    });

    it('a CA that did not sign the server’s certificate fails at start with a clear error', async () => {
      const message = await failedStart(tlsEnv({ REDIS_TLS_CACERT: certs.otherCa }), {
        readyTimeoutMs: 20_000,
      });
      expect(message).toMatch(/TLS refused.*REDIS_TLS_CACERT/);
    });

    it('no client certificate (the server verifies clients) fails at start with a clear error', async () => {
      const message = await failedStart(tlsEnv({ REDIS_TLS_CLIENT_CERT: '', REDIS_TLS_CLIENT_KEY: '' }), {
        readyTimeoutMs: 20_000,
      });
      expect(message).toMatch(/TLS refused|cannot use Redis/);
    });
  });

  describe('memcached', () => {
    let nodes: Child[];
    let dns: DnsServer;
    const srvName = '_memcache._tcp.ratelimit.test';
    beforeAll(async () => {
      nodes = [await startMemcached(), await startMemcached(), await startMemcached()];
      dns = await startDnsmasq(srvName, [nodes[0]!.port, nodes[1]!.port]);
    });
    afterAll(async () => {
      await dns?.stop();
      await Promise.all((nodes ?? []).map((n) => n.stop()));
    });

    /** gomemcache's choice: CRC-32 of the key, modulo the node list (SRV targets: sorted). */
    const nodeFor = (key: string, ports: readonly number[], sorted = false): number => {
      const list = ports.map((p) => `127.0.0.1:${p}`);
      if (sorted) list.sort();
      return Number(list[crc32(Buffer.from(key)) % list.length]!.split(':')[1]);
    };
    const whereIs = async (key: string, ports: readonly number[]): Promise<number[]> => {
      const found: number[] = [];
      for (const port of ports) if ((await memcachedGet(port, key)) !== undefined) found.push(port);
      return found;
    };

    it('MEMCACHE_HOST_PORT with three nodes: each key on exactly the node its hash names', async () => {
      const prefix = `mc-${random()}:`;
      const ports = nodes.map((n) => n.port);
      const server = await startRatelimitServer({
        ...configEnv(),
        BACKEND_TYPE: 'memcache',
        MEMCACHE_HOST_PORT: ports.map((p) => `127.0.0.1:${p}`).join(','),
        CACHE_KEY_PREFIX: prefix,
      });
      try {
        await inOneMinute(async () => {
          // Drawn again in the rare case that twenty random keys miss one of the three nodes.
          let values = Array.from({ length: 20 }, random);
          while (new Set(values.map((v) => nodeFor(keyOf(prefix, 'minute', v, 60), ports))).size < 3)
            values = Array.from({ length: 20 }, random);
          for (let round = 0; round < 2; round++)
            await server.shouldRateLimit({
              domain: 'topo',
              descriptors: descriptors(...values.map((v) => ({ minute: v }))) as never,
            });
          const used = new Set<number>();
          for (const value of values) {
            const key = keyOf(prefix, 'minute', value, 60);
            await waitFor(`${key} to be counted twice`, async () => {
              const found = await whereIs(key, ports);
              return found.length === 1 && (await memcachedGet(found[0]!, key)) === '2';
            });
            const [port] = await whereIs(key, ports);
            expect(port).toBe(nodeFor(key, ports));
            used.add(port!);
          }
          expect(used.size).toBe(3);
        });
      } finally {
        await server.stop();
      }
    });

    it('MEMCACHE_SRV from a real DNS server, and MEMCACHE_SRV_REFRESH picks up a changed record', async () => {
      const prefix = `srv-${random()}:`;
      const server = await startRatelimitServer({
        ...configEnv(),
        BACKEND_TYPE: 'memcache',
        MEMCACHE_SRV: srvName,
        MEMCACHE_SRV_DNS_SERVER: `127.0.0.1:${dns.port}`,
        MEMCACHE_SRV_REFRESH: '200ms',
        CACHE_KEY_PREFIX: prefix,
      });
      try {
        const two = [nodes[0]!.port, nodes[1]!.port];
        const before = random();
        await server.shouldRateLimit({ domain: 'topo', descriptors: descriptors({ hour: before }) as never });
        const beforeKey = keyOf(prefix, 'hour', before, 3600);
        await waitFor('the key on the node the SRV list names', async () =>
          (await whereIs(beforeKey, two)).includes(nodeFor(beforeKey, two, true)),
        );
        expect(await whereIs(beforeKey, [nodes[2]!.port])).toEqual([]);

        // The record now names the third node only: new keys land there.
        await dns.serve([nodes[2]!.port]);
        await waitFor(
          'a key counted on the third node after the record changed',
          async () => {
            const value = random();
            await server.shouldRateLimit({
              domain: 'topo',
              descriptors: descriptors({ hour: value }) as never,
            });
            const key = keyOf(prefix, 'hour', value, 3600);
            await sleep(50);
            return (await whereIs(key, [nodes[2]!.port])).length === 1;
          },
          { timeoutMs: 60_000, intervalMs: 100 },
        );
      } finally {
        await server.stop();
      }
    });

    it('an SRV name the DNS server does not know fails at start', async () => {
      const message = await failedStart(
        {
          ...configEnv(),
          BACKEND_TYPE: 'memcache',
          MEMCACHE_SRV: '_memcache._tcp.unknown.test',
          MEMCACHE_SRV_DNS_SERVER: `127.0.0.1:${dns.port}`,
        },
        { readyTimeoutMs: 20_000 },
      );
      expect(message).toMatch(/Unable to fetch servers from SRV _memcache._tcp.unknown.test/);
    });
  });

  describe('a single Redis stopped for 6 s under a decision loop', () => {
    it('fails fast while it is down, decides again once Redis answers, and meets no error after its first OK', async () => {
      const run = await stopRedisUnderDecisions(configEnv());
      process.stdout.write(
        `outage: ${run.errorsWhileDown} errors while down, first OK ${run.firstOkMs.toFixed(0)} ms after Redis answered, ${run.errorsAfterFirstOk.length} errors after it\n`,
      );
      expect(run.errorsWhileDown).toBeGreaterThan(100); // failing fast: many calls answered while down
      // Decides again (NaN: no OK within the scenario's minute; the goal, 500 ms, is bench:faults').
      expect(run.firstOkMs).not.toBeNaN();
      // No error after the first OK, over decisions that were made (the loop kept deciding).
      expect(run.okAfterFirstOk).toBeGreaterThan(10);
      expect(run.errorsAfterFirstOk).toEqual([]);
    });
  });
});
