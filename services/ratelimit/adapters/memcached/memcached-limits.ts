// Sliding windows and token buckets on memcached, exact through cas: read the value with its cas
// unique (gets), apply the operation with the domain's arithmetic (./limit-values.ts), write it
// back only if no one changed it since (cas; add for a new key), and start again when someone did,
// after a short random pause that grows with the tries. Operations on one key wait for each other
// inside the instance, so only other instances make a retry. An operation that lost every try is
// refused (never admitted unchecked); memcached failing fails open, as the rest of the memcached
// store does: logged, the request admitted.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../../../shared/logger.ts';
import type { LimitOperation, LimitReply } from '../../ports.ts';
import { applyToValue } from './limit-values.ts';
import type { MemcacheClient } from './memcache-client.ts';

/** Tries of one operation while other instances keep changing its key. */
export const MAX_CAS_ATTEMPTS = 32;

export interface MemcachedLimits {
  take(operations: readonly LimitOperation[]): Promise<LimitReply[]>;
  /** Whether the last operation reached memcached. */
  healthy(): boolean;
}

export function createMemcachedLimits(options: {
  client: MemcacheClient;
  /** The expiration to send for keeping a value `seconds` long (memcached reads above 30 days as a Unix time). */
  expiration: (seconds: number) => number;
  logger: Logger;
}): MemcachedLimits {
  const { client, logger } = options;
  const queues = new Map<string, Promise<unknown>>();
  let lastOk = true;

  /** Runs `work` after the operations already waiting on `key`. */
  const inTurn = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.catch(() => {});
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return result;
  };

  const takeOne = async (operation: LimitOperation): Promise<LimitReply> => {
    let last: LimitReply | undefined;
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const found = await options.client.gets(operation.key);
      const applied = applyToValue(operation, found?.value);
      last = applied.reply;
      if (applied.value === undefined) return applied.reply;
      // Rounded up and a second more: memcached's clock ticks in whole seconds, and a bucket or
      // window dropped early would admit too much (one kept late is harmless).
      const expiration = options.expiration(Math.ceil(applied.ttlMs / 1000) + 1);
      const stored =
        found === undefined
          ? await client.add(operation.key, applied.value, expiration)
          : await client.cas(operation.key, applied.value, expiration, found.casUnique);
      if (stored) return applied.reply;
      await sleep(Math.random() * (attempt + 1));
    }
    logger.warn(
      { key: operation.key, attempts: MAX_CAS_ATTEMPTS },
      'memcache: the key changed under every attempt; refusing the request',
    );
    return { admitted: false, before: last?.before ?? [] };
  };

  return {
    async take(operations) {
      return Promise.all(
        operations.map((operation) =>
          inTurn(operation.key, () => takeOne(operation)).then(
            (reply) => {
              lastOk = true;
              return reply;
            },
            (error: unknown): LimitReply => {
              lastOk = false;
              logger.error({ err: error, key: operation.key }, 'memcache limit operation failed; admitting');
              return { admitted: true, before: [] };
            },
          ),
        ),
      );
    },
    healthy: () => lastOk,
  };
}
