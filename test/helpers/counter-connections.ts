// One Redis node's counter connections as the store makes them, for the tests and the benchmark
// that drive a connection alone: the lean RESP one, and ioredis (the path sentinel, cluster and
// TLS take).
import type {
  ConnectionEvents,
  CounterConnection,
} from '../../services/ratelimit/adapters/redis/counter-connection.ts';
import { createIoredisConnection } from '../../services/ratelimit/adapters/redis/ioredis-connection.ts';
import { createRedisClients, parseHostPort } from '../../services/ratelimit/adapters/redis/redis-client.ts';
import { createRespConnection } from '../../services/ratelimit/adapters/redis/resp-connection.ts';

const QUIET: ConnectionEvents = { onReady() {}, onClose() {}, onError() {} };

/** ioredis on the single node at `redisUrl` (host:port), as the store creates it. */
export function ioredisCounterConnection(
  redisUrl: string,
  timeoutMs: number,
  events: ConnectionEvents = QUIET,
): CounterConnection {
  const [client] = createRedisClients(
    {
      name: 'redis',
      socketType: 'tcp',
      type: 'single',
      url: redisUrl,
      poolSize: 1,
      auth: '',
      sentinelAuth: '',
      tls: false,
      pipelineWindowMs: 0,
      pipelineLimit: 0,
      timeoutMs,
    },
    { clientCert: '', clientKey: '', caCert: '', skipHostnameVerification: false },
  );
  return createIoredisConnection(client!, events);
}

/** The lean RESP connection to the single node at `redisUrl` (host:port). */
export function respCounterConnection(
  redisUrl: string,
  timeoutMs: number,
  events: ConnectionEvents = QUIET,
): CounterConnection {
  return createRespConnection({ ...parseHostPort(redisUrl), connectTimeoutMs: timeoutMs, ...events });
}
