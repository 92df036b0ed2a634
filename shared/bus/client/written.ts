// What a send tells about where its records landed, computed the same way for every client: the
// broker answers each partition's first offset, and the records of a partition are consecutive.
import type { OutgoingRecord, WrittenPartition } from './types.ts';

export const partitionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/** How many of the records go to each partition, by `partitionKey`. */
export function recordsPerPartition(records: readonly OutgoingRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { topic, partition } of records) {
    const key = partitionKey(topic, partition);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The end of each partition's records from the first offsets the broker answered. */
export function writtenEnds(
  records: readonly OutgoingRecord[],
  firstOffsets: readonly { topic: string; partition: number; offset: bigint }[],
): WrittenPartition[] {
  const counts = recordsPerPartition(records);
  const ends: WrittenPartition[] = [];
  for (const { topic, partition, offset } of firstOffsets) {
    const count = counts.get(partitionKey(topic, partition));
    if (count !== undefined) ends.push({ topic, partition, next: offset + BigInt(count) });
  }
  return ends;
}
