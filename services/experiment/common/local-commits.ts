// What this process's own persistence consumer has committed, as it tells it: a lower bound of the
// persistence group's committed offsets (a commit Kafka accepted stays, and a group's offsets only
// move on), so a read barrier that finds its target here needs to ask Kafka nothing more.

export interface LocalCommits {
  /** The highest `next` committed here on the partition; undefined when none was seen. */
  committed(topic: string, partition: number): bigint | undefined;
  /** Records a commit (everything before `next` is in the store). */
  record(topic: string, partition: number, next: bigint): void;
  /** Called after each recorded commit; returns the function that removes the listener. */
  onCommit(listener: (topic: string, partition: number, next: bigint) => void): () => void;
}

export function createLocalCommits(): LocalCommits {
  const offsets = new Map<string, bigint>();
  const listeners = new Set<(topic: string, partition: number, next: bigint) => void>();
  const key = (topic: string, partition: number): string => `${partition}:${topic}`;
  return {
    committed: (topic, partition) => offsets.get(key(topic, partition)),
    record(topic, partition, next) {
      const at = key(topic, partition);
      if ((offsets.get(at) ?? -1n) >= next) return;
      offsets.set(at, next);
      for (const listener of listeners) listener(topic, partition, next);
    },
    onCommit(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
