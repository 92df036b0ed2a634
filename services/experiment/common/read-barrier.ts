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
  /**
   * Why the store cannot be read now (it is lost), or undefined: checked before and while waiting,
   * so a read fails at once with that reason rather than after `timeoutMs`.
   */
  storeLost?: (what: string) => AppError | undefined;
}): ReadBarrier {
  const { bus, topic, groupId, timeoutMs, pollMs = 5 } = options;
  const checkStore = (key: string): void => {
    const lost = options.storeLost?.(`reading ${key}`);
    if (lost) throw lost;
  };
  const unreachable = (what: string, error: unknown) =>
    error instanceof AppError
      ? error
      : unavailable(`read barrier: cannot read ${what}: ${(error as Error).message}`, error);

  return {
    async waitFor(key) {
      checkStore(key);
      const started = Date.now();
      const committedOffsets = () =>
        bus.committedOffsets(groupId, topic).catch((error: unknown) => {
          throw unreachable(`offsets of group ${groupId}`, error);
        });
      // The group's offsets are asked for together with the watermarks, not after them: one wait for
      // Kafka instead of two. Offsets read before the watermark can only be lower, so a read that
      // passes on them would also pass on offsets read after it.
      const asked = committedOffsets();
      // Not needed when the partition turns out empty: its failure then fails nothing.
      asked.catch(() => undefined);
      const watermarks = await bus.watermarks(topic).catch((error: unknown) => {
        throw unreachable(`${topic} offsets from Kafka`, error);
      });
      // Every partition's watermarks, so the key maps over the topic's current partition count
      // exactly as the producer maps it.
      const partition = partitionOf(key, watermarks.length);
      const watermark = watermarks.find((w) => w.partition === partition);
      // Nothing readable on the partition: no write can be missing.
      if (!watermark || watermark.high <= watermark.low) return;
      const target = watermark.high;
      let committed = (await asked).get(partition) ?? -1n;
      for (;;) {
        if (committed >= target) return;
        if (Date.now() - started >= timeoutMs) break;
        checkStore(key);
        await sleep(pollMs);
        committed = (await committedOffsets()).get(partition) ?? -1n;
      }
      // Callers read this: it names the consumer as its setting does (PERSISTENCE_WORKER).
      throw unavailable(
        `the persistence worker (group ${groupId}) has applied ${topic} partition ${partition} up to offset ` +
          `${committed < 0n ? 0n : committed} of ${target} and did not catch up within ${timeoutMs} ms; ` +
          'refusing to answer from a store that may miss acknowledged writes',
      );
    },
  };
}
