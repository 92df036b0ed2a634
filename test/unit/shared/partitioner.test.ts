// The bus picks partitions itself, as Kafka's Java client does (murmur2 of the key, positive, modulo
// the partition count), so every producer of a key agrees on its partition whatever its library.
import { describe, expect, it } from 'vitest';
import { murmur2, partitionOf } from '../../../shared/bus/partitioner.ts';

describe('partitionOf', () => {
  // Vectors computed with org.apache.kafka.common.utils.Utils.murmur2 (kafka-clients).
  it.each([
    ['', 275646681],
    ['a', -1563381124],
    ['abc', 479470107],
    ['abcd', -1323649548],
    ['trial-1', -1300577802],
    ['experiment-ÿ-é', -890574351],
    ['21', -973932308],
  ])('hashes %j as Java murmur2 does (%d)', (key, hash) => {
    expect(murmur2(Buffer.from(key, 'utf8'))).toBe(hash);
  });

  it.each([
    ['trial-1', 6, 2],
    ['abc', 100, 7],
    ['kv-cluster-1', 6, 4],
  ] as const)("puts %j on partition %d of %d as Java's default partitioner does", (key, count, partition) => {
    expect(partitionOf(key, count)).toBe(partition);
  });

  it('always answers a partition in range, the same for the same key', () => {
    for (let i = 0; i < 1_000; i++) {
      const key = `key-${i}`;
      const p = partitionOf(key, 7);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(7);
      expect(partitionOf(key, 7)).toBe(p);
    }
  });
});
