// GET /counters on Redis: SCAN of every master of each store (the main one, then the per-second
// one), GET of counters and buckets, HGETALL of sliding windows, through ioredis clients of its own
// made on the first request (the decision path's connections are not shared with a debug page).
import type { Cluster, Redis } from 'ioredis';
import { AppError } from '../../../../shared/errors.ts';
import type { CounterReader, StoredKey } from '../../ports.ts';
import type { RedisConnectionSettings } from '../../settings/redis-connection.ts';
import { createRedisClients, type RedisTlsFiles } from './redis-client.ts';

/** SCAN calls one page may make: a page stays quick however few keys match. */
const MAX_SCAN_CALLS = 64;

/** Where a listing stands: store, master node (by address), that node's SCAN cursor, keys found but not yet given. */
interface Position {
  readonly s: number;
  readonly n: number;
  readonly c: string;
  readonly k: Array<[string, number]>;
}

const encode = (position: Position): string => Buffer.from(JSON.stringify(position)).toString('base64url');

function decode(cursor: string): Position {
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Position;
    if (Number.isInteger(p.s) && Number.isInteger(p.n) && /^\d+$/.test(p.c) && Array.isArray(p.k)) return p;
  } catch {
    // not JSON: refused below
  }
  throw new AppError('INVALID_ARGUMENT', 'cursor is not one this endpoint gave');
}

/** Resolves once the client is ready, or fails naming the store. */
function ready(client: Redis | Cluster, name: string, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new AppError('UNAVAILABLE', `redis ${name} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}

const numbers = (text: string | null): number[] => (text === null ? [] : text.split(':').map(Number));

export function createRedisCounterReader(options: {
  main: RedisConnectionSettings;
  perSecond: RedisConnectionSettings | undefined;
  tls: RedisTlsFiles;
}): CounterReader {
  const stores = options.perSecond === undefined ? [options.main] : [options.main, options.perSecond];
  const clients: Array<Redis | Cluster | undefined> = stores.map(() => undefined);

  const clientOf = async (store: number): Promise<Redis | Cluster> => {
    const connection = stores[store]!;
    let client = clients[store];
    if (client === undefined) {
      client = createRedisClients({ ...connection, poolSize: 1 }, options.tls)[0]!;
      client.on('error', () => {}); // answered as UNAVAILABLE below
      clients[store] = client;
    }
    await ready(client, connection.name, connection.timeoutMs);
    return client;
  };

  /** The store's nodes to SCAN: its masters by address (a cluster), or the client itself. */
  const nodesOf = async (store: number): Promise<Redis[]> => {
    const client = await clientOf(store);
    if (!('nodes' in client) || stores[store]!.type !== 'cluster') return [client as Redis];
    const address = (node: Redis) => `${node.options.host}:${node.options.port}`;
    return (client as Cluster).nodes('master').sort((a, b) => address(a).localeCompare(address(b)));
  };

  const unavailable = (error: unknown): never => {
    if (error instanceof AppError) throw error;
    throw new AppError('UNAVAILABLE', `redis: ${(error as Error).message}`, { cause: error });
  };

  return {
    async scan(pattern, cursor, count) {
      let { s, n, c, k } =
        cursor === '' ? { s: 0, n: 0, c: '0', k: [] as Array<[string, number]> } : decode(cursor);
      const found: Array<[string, number]> = [...k];
      try {
        for (let calls = 0; found.length < count && s < stores.length && calls < MAX_SCAN_CALLS; calls++) {
          const nodes = await nodesOf(s);
          if (n >= nodes.length) {
            [s, n, c] = [s + 1, 0, '0'];
            continue;
          }
          const [next, keys] = await nodes[n]!.scan(c, 'MATCH', pattern, 'COUNT', count);
          for (const key of keys) found.push([key, s]);
          if (next === '0') [n, c] = [n + 1, '0'];
          else c = next;
        }
      } catch (error) {
        unavailable(error);
      }
      const page = found.slice(0, count);
      const rest = found.slice(count);
      const done = s >= stores.length && rest.length === 0;
      return {
        keys: page.map(([key, store]): StoredKey => ({ key, perSecond: store === 1 })),
        cursor: done ? '' : encode({ s, n, c, k: rest }),
      };
    },
    async read(keys) {
      try {
        return await Promise.all(
          keys.map(async ({ key, perSecond, algorithm }) => {
            const client = await clientOf(perSecond && stores.length > 1 ? 1 : 0);
            if (algorithm !== 'sliding_window') return numbers(await client.get(key));
            return Object.entries(await client.hgetall(key)).flatMap(([field, hits]) => [
              Number(field),
              Number(hits),
            ]);
          }),
        );
      } catch (error) {
        return unavailable(error);
      }
    },
    async close() {
      await Promise.all(clients.map((client) => client?.quit().catch(() => client.disconnect())));
    },
  };
}
