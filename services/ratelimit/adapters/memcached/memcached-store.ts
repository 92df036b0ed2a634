// The memcached counter store (BACKEND_TYPE=memcache), as envoyproxy/ratelimit's memcached/cache_impl.go:
// the decision uses the values read before counting (GetMulti) plus the addends; the increments
// follow without being waited for (add for a key not found, incr otherwise). Failures
// are logged and count as 0: memcached fails open. Sliding windows and token buckets are exact,
// through cas (./memcached-limits.ts).
import { promises as dns } from 'node:dns';
import type { Logger } from '../../../../shared/logger.ts';
import type { CounterIncrement, CounterStore } from '../../ports.ts';
import { createMemcacheClient } from './memcache-client.ts';
import { createMemcachedLimits } from './memcached-limits.ts';

/** memcached reads an expiration above 30 days as a Unix time, not a number of seconds. */
const RELATIVE_EXPIRATION_LIMIT = 2_592_000;

export interface MemcachedStoreOptions {
  readonly hostPorts: readonly string[];
  /** An SRV name (`_memcache._tcp.example.com`) to look the nodes up instead; '' for none. */
  readonly srv: string;
  readonly srvRefreshMs: number;
  /** `host:port` of the DNS server to ask for the SRV record; '' for the system's resolver. */
  readonly srvDnsServer?: string;
  readonly maxIdleConns: number;
  readonly expirationJitterMaxSeconds: number;
  readonly timeoutMs: number;
  readonly logger: Logger;
  readonly random?: () => number;
  readonly nowMs?: () => number;
}

export interface MemcachedCounterStore extends CounterStore {
  /** The values of the keys found (GET /counters). */
  values(keys: readonly string[]): Promise<Map<string, string>>;
  /** Resolves when the increments sent so far have been answered (tests, shutdown). */
  settled(): Promise<void>;
}

const SRV_NAME = /^_(.+?)\._(.+?)\.(.+)$/;

/** The SRV record's targets as sorted host:port pairs, so every instance sees one order. */
export async function lookupSrv(name: string, dnsServer = ''): Promise<string[]> {
  if (!SRV_NAME.test(name)) throw new Error(`Unable to fetch servers from SRV: invalid SRV name ${name}`);
  let resolver: Pick<dns.Resolver, 'resolveSrv'> = dns;
  if (dnsServer !== '') {
    const own = new dns.Resolver({ timeout: 2_000, tries: 2 });
    own.setServers([dnsServer]);
    resolver = own;
  }
  try {
    const records = await resolver.resolveSrv(name);
    return records.map((r) => `${r.name}:${r.port}`).sort();
  } catch (error) {
    throw new Error(`Unable to fetch servers from SRV ${name}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

export async function createMemcachedCounterStore(
  options: MemcachedStoreOptions,
): Promise<MemcachedCounterStore> {
  const { logger } = options;
  const random = options.random ?? Math.random;
  const nowMs = options.nowMs ?? Date.now;
  const lookup = () => lookupSrv(options.srv, options.srvDnsServer);
  const servers = options.srv === '' ? options.hostPorts : await lookup();
  const client = createMemcacheClient({
    servers,
    connectionsPerNode: options.maxIdleConns,
    timeoutMs: options.timeoutMs,
  });
  let refresh: NodeJS.Timeout | undefined;
  if (options.srv !== '' && options.srvRefreshMs > 0) {
    let known = servers.join(',');
    refresh = setInterval(() => {
      lookup().then(
        (found) => {
          if (found.join(',') === known) return;
          logger.info({ srv: options.srv, servers: found }, 'memcache servers changed');
          known = found.join(',');
          client.setServers(found);
        },
        (error: unknown) => logger.warn({ err: error, srv: options.srv }, 'memcache SRV refresh failed'),
      );
    }, options.srvRefreshMs);
    refresh.unref();
  }

  let lastOk = true;
  const inFlight = new Set<Promise<void>>();

  const absoluteBeyondLimit = (seconds: number): number =>
    seconds > RELATIVE_EXPIRATION_LIMIT ? Math.floor(nowMs() / 1000) + seconds : seconds;
  const expiration = (windowSeconds: number): number =>
    absoluteBeyondLimit(windowSeconds + Math.floor(random() * options.expirationJitterMaxSeconds));
  const limits = createMemcachedLimits({ client, expiration: absoluteBeyondLimit, logger });

  /**
   * The first command is written before the decision is answered, on the key's connection, so the
   * next read of the key comes after it: a key the read did not find is added, one it found is
   * incremented; the other command follows when another writer got there first.
   */
  const count = async (item: CounterIncrement, found: boolean): Promise<void> => {
    if (item.addend === 0) return;
    if (found && (await client.increment(item.key, item.addend)) !== undefined) return;
    if (await client.add(item.key, String(item.addend), expiration(item.windowSeconds))) return;
    await client.increment(item.key, item.addend);
  };

  const track = (promise: Promise<void>): void => {
    const tracked = promise.catch((error: unknown) => {
      lastOk = false;
      logger.error({ err: error }, 'memcache increment failed');
    });
    inFlight.add(tracked);
    void tracked.finally(() => inFlight.delete(tracked));
  };

  return {
    async increment(items) {
      let values: Map<string, string>;
      try {
        values = await client.getMulti(items.map((i) => i.key));
        lastOk = true;
      } catch (error) {
        lastOk = false;
        logger.error(
          { err: error, keys: items.map((i) => i.key) },
          'memcache multi-get failed; counting from 0',
        );
        values = new Map();
      }
      for (const item of items) track(count(item, values.has(item.key)));
      return items.map((item) => {
        const before = Number.parseInt(values.get(item.key) ?? '0', 10);
        return (Number.isFinite(before) ? before : 0) + item.addend;
      });
    },
    take: (operations) => limits.take(operations),
    values: (keys) => client.getMulti(keys),
    healthy: () => lastOk && limits.healthy(),
    settled: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
    async close() {
      if (refresh !== undefined) clearInterval(refresh);
      await Promise.all(inFlight);
      client.close();
    },
  };
}
