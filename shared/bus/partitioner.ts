// Which partition a key lives on: the Java client's default (murmur2 of the key's bytes, sign bit
// cleared, modulo the partition count), as kafkajs, librdkafka's murmur2_random, and Kafka Streams
// place keys. The bus chooses every partition itself, so producers and the read barrier agree
// whatever client library sends the records.

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2), as a signed 32-bit integer. */
export function murmur2(data: Buffer): number {
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data.readInt32LE(i);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & 3;
  if (tail === 3) h ^= (data[whole + 2]! & 0xff) << 16;
  if (tail >= 2) h ^= (data[whole + 1]! & 0xff) << 8;
  if (tail >= 1) {
    h ^= data[whole]! & 0xff;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition of `key` among `partitions` partitions. */
export function partitionOf(key: string | Buffer, partitions: number): number {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  return (murmur2(bytes) & 0x7fffffff) % partitions;
}
