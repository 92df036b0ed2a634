// One Redis store's connections (REDIS_POOL_SIZE of them, or one cluster client): every decision
// of one turn of the event loop goes to the same connection, so that their commands leave in one
// write; a watchdog resets a connection that stops answering (REDIS_TIMEOUT).
import { AppError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { CounterIncrement, LimitOperation, LimitReply } from '../../ports.ts';
import type { RedisConnectionSettings } from '../../settings/redis-connection.ts';
import type { CounterConnection } from './counter-connection.ts';
import { createImplicitPipeline } from './implicit-pipeline.ts';
import { createCounterConnections, describeConnection, type RedisTlsFiles } from './redis-client.ts';

export const redisError = (message: string, cause?: unknown): AppError =>
  new AppError('UNKNOWN', message, { cause, retriable: true });

/** One pool of connections and its (optional) implicit-pipelining queue. */
export interface Pool {
  readonly connection: RedisConnectionSettings;
  readonly connections: CounterConnection[];
  /** One pipeline of INCRBY + EXPIRE per item (several with implicit pipelining or a cluster). */
  send(items: readonly CounterIncrement[]): Promise<number[]>;
  /** The scripts of sliding windows and token buckets, pipelined on one connection (a cluster client routes each by key). */
  take(operations: readonly LimitOperation[]): Promise<LimitReply[]>;
  /** Stops the watchdog (the connections are closed by their owner). */
  stop(): void;
  /**
   * The connection errors since a connection was last ready, newest last (at most 20). A refused
   * TLS client certificate shows here: under TLS 1.3 the server's alert can come after the
   * handshake, so the command that failed may see only ECONNRESET.
   */
  errorsSinceReady(): readonly Error[];
}

export function createConnectionPool(options: {
  connection: RedisConnectionSettings;
  tls: RedisTlsFiles;
  expiry: (windowSeconds: number) => number;
  logger: Logger;
  /** A connection became ready or closed. */
  onReadyOrClose: () => void;
  /** A pipeline was sent (one round trip). */
  onRoundTrip: () => void;
}): Pool {
  const { connection, logger } = options;
  const where = describeConnection(connection);
  let lastError = 'no connection yet';
  let errorsSinceReady: Error[] = [];
  const connections = createCounterConnections(connection, options.tls, {
    onError(error) {
      if (error.message !== lastError)
        logger.warn({ store: connection.name, where, err: error }, 'redis error');
      lastError = error.message;
      errorsSinceReady = [...errorsSinceReady.slice(-19), error];
    },
    onReady() {
      errorsSinceReady = [];
      logger.info({ store: connection.name, where }, 'redis connection ready');
      options.onReadyOrClose();
    },
    onClose: () => options.onReadyOrClose(),
  });

  let next = 0;
  let sticky: CounterConnection | undefined;
  const unstick = (): void => {
    sticky = undefined;
  };
  const pick = (): CounterConnection => {
    if (sticky?.ready) return sticky;
    for (let tried = 0; tried < connections.length; tried++) {
      const candidate = connections[next]!;
      next = (next + 1) % connections.length;
      if (candidate.ready) {
        sticky = candidate;
        setImmediate(unstick);
        return candidate;
      }
    }
    throw redisError(`redis ${connection.name} (${where}) is not connected: ${lastError}`);
  };

  /** One pipeline: INCRBY + EXPIRE per key; cluster pipelines must stay within one key's slot. */
  const exec = async (items: readonly CounterIncrement[]): Promise<number[]> => {
    if (connection.type === 'cluster' && items.length > 1)
      return (await Promise.all(items.map((item) => exec([item])))).flat();
    const target = pick();
    options.onRoundTrip();
    try {
      return await target.increment(items, options.expiry);
    } catch (error) {
      throw redisError(`redis ${connection.name}: ${(error as Error).message}`, error);
    }
  };

  const take = async (operations: readonly LimitOperation[]): Promise<LimitReply[]> => {
    const target = pick();
    options.onRoundTrip();
    try {
      return await target.take(operations);
    } catch (error) {
      throw redisError(`redis ${connection.name}: ${(error as Error).message}`, error);
    }
  };

  const watchdog = setInterval(
    () => {
      const now = performance.now();
      for (const c of connections) {
        if (c.stalled(now, connection.timeoutMs)) {
          logger.warn(
            { store: connection.name, where, timeoutMs: connection.timeoutMs },
            'redis did not answer in time; reconnecting',
          );
          lastError = `i/o timeout after ${connection.timeoutMs} ms`;
          c.reset();
        }
      }
    },
    Math.min(100, connection.timeoutMs),
  );
  watchdog.unref();

  const send =
    connection.pipelineWindowMs > 0 || connection.pipelineLimit > 0
      ? createImplicitPipeline(exec, connection.pipelineWindowMs, connection.pipelineLimit)
      : exec;
  return {
    connection,
    connections,
    send,
    take,
    stop: () => clearInterval(watchdog),
    errorsSinceReady: () => errorsSinceReady,
  };
}
