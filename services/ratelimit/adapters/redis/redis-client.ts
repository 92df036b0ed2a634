// Redis connections as REDIS_* settings describe them (envoyproxy/ratelimit redis/driver_impl.go):
// single node over TCP or a unix socket, sentinel or cluster; AUTH, TLS; a pool of connections.
// A plain single node gets the lean RESP connection; the rest is driven by ioredis.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ConnectionOptions } from 'node:tls';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { RedisConnectionSettings } from '../../settings/redis-connection.ts';
import { type ConnectionEvents, type CounterConnection, retryDelayMs } from './counter-connection.ts';
import { createIoredisConnection } from './ioredis-connection.ts';
import { createRespConnection } from './resp-connection.ts';

export interface RedisTlsFiles {
  readonly clientCert: string;
  readonly clientKey: string;
  readonly caCert: string;
  readonly skipHostnameVerification: boolean;
}

/** `password` or `user:password` (split at the first colon). */
export function parseAuth(auth: string): { username?: string; password?: string } {
  if (auth === '') return {};
  const colon = auth.indexOf(':');
  return colon < 0 ? { password: auth } : { username: auth.slice(0, colon), password: auth.slice(colon + 1) };
}

/** `host:port`, also `[v6]:port` and `redis://host:port`. */
export function parseHostPort(text: string): { host: string; port: number } {
  const trimmed = text.trim().replace(/^rediss?:\/\//, '');
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(trimmed);
  if (match === null) throw new Error(`not a host:port pair: ${JSON.stringify(text)}`);
  return { host: match[1]!, port: Number(match[2]) };
}

function tlsOptions(enabled: boolean, files: RedisTlsFiles): ConnectionOptions | undefined {
  if (!enabled) return undefined;
  const read = (file: string): Buffer | undefined => (file === '' ? undefined : readFileSync(file));
  return {
    ca: read(files.caCert),
    cert: read(files.clientCert),
    key: read(files.clientKey),
    ...(files.skipHostnameVerification ? { checkServerIdentity: () => undefined } : {}),
  };
}

const retryStrategy = retryDelayMs;

const require = createRequire(import.meta.url);
/** ioredis, loaded only for what the lean connection does not do (sentinel, cluster, TLS): ~2 MB of heap a thread otherwise. */
const ioredis = (): typeof import('ioredis') => require('ioredis');

/**
 * Failing fast is the point: with no connection a command is rejected at once (no offline queue,
 * no retry of commands). REDIS_TIMEOUT bounds connecting here; the store's watchdog bounds
 * commands (ioredis's commandTimeout costs a timer per command, a measurable share of a decision).
 */
function baseOptions(connection: RedisConnectionSettings, tls: RedisTlsFiles): RedisOptions {
  return {
    ...parseAuth(connection.auth),
    tls: tlsOptions(connection.tls, tls),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: connection.timeoutMs,
    retryStrategy,
    enableReadyCheck: true,
  };
}

/**
 * The connections of one store: `poolSize` connections (lean RESP ones for a single node without
 * TLS), or one cluster client.
 */
export function createCounterConnections(
  connection: RedisConnectionSettings,
  tls: RedisTlsFiles,
  events: ConnectionEvents,
): CounterConnection[] {
  if (connection.type === 'single' && !connection.tls) {
    const address =
      connection.socketType === 'unix' ? { path: connection.url } : parseHostPort(connection.url);
    return Array.from({ length: connection.poolSize }, () =>
      createRespConnection({
        ...address,
        ...parseAuth(connection.auth),
        connectTimeoutMs: connection.timeoutMs,
        ...events,
      }),
    );
  }
  return createRedisClients(connection, tls).map((client) => createIoredisConnection(client, events));
}

/** The ioredis clients of one store: `poolSize` connections, or one cluster client. */
export function createRedisClients(
  connection: RedisConnectionSettings,
  tls: RedisTlsFiles,
): Array<Redis | Cluster> {
  const options = baseOptions(connection, tls);
  const { Cluster, Redis } = ioredis();
  if (connection.type === 'cluster') {
    const nodes = connection.url
      .split(',')
      .filter((n) => n.trim() !== '')
      .map(parseHostPort);
    const { enableOfflineQueue: _queue, retryStrategy: _retry, ...redisOptions } = options;
    return [
      new Cluster(nodes, {
        enableOfflineQueue: false,
        clusterRetryStrategy: retryStrategy,
        redisOptions,
      }),
    ];
  }
  const one = (): Redis => {
    if (connection.type === 'sentinel') {
      const [name, ...sentinels] = connection.url.split(',').map((p) => p.trim());
      const sentinelAuth = parseAuth(connection.sentinelAuth);
      return new Redis({
        ...options,
        // After a failover the old master turns replica: a READONLY reply drops the connection, which
        // asks the sentinels again; +switch-master moves it at once (ioredis's failover detector).
        reconnectOnError: (error) => error.message.startsWith('READONLY'),
        failoverDetector: true,
        sentinelRetryStrategy: retryStrategy,
        name,
        sentinels: sentinels.map(parseHostPort),
        sentinelUsername: sentinelAuth.username,
        sentinelPassword: sentinelAuth.password,
      });
    }
    if (connection.socketType === 'unix') return new Redis({ ...options, path: connection.url });
    return new Redis({ ...options, ...parseHostPort(connection.url) });
  };
  return Array.from({ length: connection.poolSize }, one);
}

/** Where the store is, for messages: the URL without credentials. */
export const describeConnection = (connection: RedisConnectionSettings): string =>
  `${connection.type} ${connection.socketType === 'unix' && connection.type === 'single' ? 'unix:' : ''}${connection.url}`;
