import { setTimeout as sleep } from 'node:timers/promises';
import { type Bus, partitionOf } from '../../../shared/bus/index.ts';
import { AppError, unavailable } from '../../../shared/errors.ts';

export interface ReadBarrier {
  /**
   * Resolves once the persistence group has committed the key's partition up to the high
   * watermark seen when called: every write acknowledged before the call is then in the store.
   * Rejects with UNAVAILABLE, saying why, when that does not happen within the bound.
   */
  waitFor(key: string): Promise<void>;
}

/**
 * Reads the persistence group's committed offsets from Kafka, never in-process state, so any
 * number of gateway instances give the same guarantee.
 */
export function createReadBarrier(options: {
  bus: Pick<Bus, 'watermarks' | 'committedOffsets'>;
  topic: string;
  groupId: string;
  timeoutMs: number;
  pollMs?: number;
}): ReadBarrier {
  const { bus, topic, groupId, timeoutMs, pollMs = 5 } = options;
  const unreachable = (what: string, error: unknown) =>
    error instanceof AppError
      ? error
      : unavailable(`read barrier: cannot read ${what}: ${(error as Error).message}`, error);

  return {
    async waitFor(key) {
      const started = Date.now();
      let partition: number;
      let target: bigint;
      try {
        // Every partition's watermarks, so the key maps over the topic's current partition count
        // exactly as the producer maps it.
        const watermarks = await bus.watermarks(topic);
        partition = partitionOf(key, watermarks.length);
        const watermark = watermarks.find((w) => w.partition === partition);
        // Nothing readable on the partition: no write can be missing.
        if (!watermark || watermark.high <= watermark.low) return;
        target = watermark.high;
      } catch (error) {
        throw unreachable(`${topic} offsets from Kafka`, error);
      }
      let committed = -1n;
      for (;;) {
        try {
          committed = (await bus.committedOffsets(groupId, topic)).get(partition) ?? -1n;
        } catch (error) {
          throw unreachable(`offsets of group ${groupId}`, error);
        }
        if (committed >= target) return;
        if (Date.now() - started >= timeoutMs) break;
        await sleep(pollMs);
      }
      throw unavailable(
        `the persistence worker (group ${groupId}) has applied ${topic} partition ${partition} up to offset ` +
          `${committed < 0n ? 0n : committed} of ${target} and did not catch up within ${timeoutMs} ms; ` +
          'refusing to answer from a store that may miss acknowledged writes',
      );
    },
  };
}
