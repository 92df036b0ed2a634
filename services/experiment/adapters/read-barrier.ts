import { setTimeout as sleep } from 'node:timers/promises';
import { type Admin, Partitioners, type PartitionMetadata } from 'kafkajs';
import { unavailable } from '../../../shared/errors.ts';

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
  admin: Admin;
  topic: string;
  groupId: string;
  timeoutMs: number;
  pollMs?: number;
}): ReadBarrier {
  const { admin, topic, groupId, timeoutMs, pollMs = 5 } = options;
  // The producer's own partitioner, so keys map to the partitions the producer wrote to.
  const partitioner = Partitioners.DefaultPartitioner();
  let partitions: PartitionMetadata[] | undefined;

  async function partitionOf(key: string): Promise<number> {
    if (!partitions) {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      partitions = topics[0]!.partitions;
    }
    return partitioner({ topic, partitionMetadata: partitions, message: { key, value: null } });
  }

  async function committedOffset(partition: number): Promise<number> {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return Number(offsets?.partitions.find((p) => p.partition === partition)?.offset ?? -1);
  }

  return {
    async waitFor(key) {
      const started = Date.now();
      let partition: number;
      let target: number;
      let low: number;
      try {
        partition = await partitionOf(key);
        const watermark = (await admin.fetchTopicOffsets(topic)).find((w) => w.partition === partition);
        target = Number(watermark?.high ?? 0);
        low = Number(watermark?.low ?? 0);
      } catch (error) {
        throw unavailable(
          `read barrier: cannot read ${topic} offsets from Kafka: ${(error as Error).message}`,
          error,
        );
      }
      // Nothing readable on the partition: no write can be missing.
      if (target <= low) return;
      let committed = -1;
      for (;;) {
        try {
          committed = await committedOffset(partition);
        } catch (error) {
          throw unavailable(
            `read barrier: cannot read offsets of group ${groupId}: ${(error as Error).message}`,
            error,
          );
        }
        if (committed >= target) return;
        if (Date.now() - started >= timeoutMs) break;
        await sleep(pollMs);
      }
      throw unavailable(
        `the persistence worker (group ${groupId}) has applied ${topic} partition ${partition} up to offset ` +
          `${Math.max(committed, 0)} of ${target} and did not catch up within ${timeoutMs} ms; ` +
          'refusing to answer from a store that may miss acknowledged writes',
      );
    },
  };
}
