// What a group member knows of its partitions, keyed `topic:partition` as the library's stream is.

export const partitionKey = (topic: string, partition: number) => `${topic}:${partition}`;

const split = (key: string): [string, number] => {
  const at = key.lastIndexOf(':');
  return [key.slice(0, at), Number(key.slice(at + 1))];
};

/** The assigned partitions of one member: their starts, floors, pauses and leader epochs. */
export class PartitionBook {
  readonly #assigned = new Set<string>();
  /** Partitions whose start (ConsumeOptions.startAt) was applied since the last assignment. */
  readonly #started = new Set<string>();
  /** A start set while a fetch was in flight: records of that fetch below it are dropped. */
  readonly #floors = new Map<string, bigint>();
  readonly #paused = new Set<string>();
  readonly #epochs = new Map<string, number>();
  /** Partition counts at the last join: more partitions later means joining again. */
  readonly #counts = new Map<string, number>();

  /** Takes an assignment; `fresh` forgets the previous one (a rebalance). Returns it as topic → partitions. */
  assign(
    assignments: Iterable<{ readonly topic: string; readonly partitions: Iterable<number> }>,
    fresh: boolean,
  ): Map<string, number[]> {
    if (fresh) {
      this.#assigned.clear();
      this.#started.clear();
      this.#paused.clear();
    }
    const assignment = new Map<string, number[]>();
    for (const { topic, partitions } of assignments) {
      assignment.set(topic, [...partitions]);
      for (const p of partitions) this.#assigned.add(partitionKey(topic, p));
    }
    return assignment;
  }

  /**
   * Sets each newly assigned partition's own start in the stream's positions (which hold the
   * committed offset, or the earliest); the start is also a floor for records already fetched.
   */
  applyStarts(
    startAt: (topic: string, partition: number) => bigint | undefined,
    positions: Map<string, bigint>,
  ): void {
    for (const key of this.#assigned) {
      if (this.#started.has(key)) continue;
      this.#started.add(key);
      const start = startAt(...split(key));
      if (start === undefined) continue;
      positions.set(key, start);
      this.#floors.set(key, start);
    }
  }

  /**
   * Whether a fetched record is handed over: assigned, not paused, not below its floor. A kept
   * record's leader epoch is the one its partition's commits carry.
   */
  keep(key: string, offset: bigint, leaderEpoch: number): boolean {
    const floor = this.#floors.get(key);
    if ((floor !== undefined && offset < floor) || this.#paused.has(key) || !this.#assigned.has(key))
      return false;
    this.#epochs.set(key, leaderEpoch);
    return true;
  }

  /** A batch of the partition is handed over: its floor has done its job. */
  clearFloor(key: string): void {
    this.#floors.delete(key);
  }

  epoch = (key: string): number => this.#epochs.get(key) ?? -1;
  isAssigned = (key: string): boolean => this.#assigned.has(key);
  pause = (topic: string, partition: number): void => void this.#paused.add(partitionKey(topic, partition));

  /** The next offset of each assigned, unpaused partition, once its start is reached. */
  *positions(next: Map<string, bigint>): Generator<[topic: string, partition: number, next: bigint]> {
    for (const key of this.#assigned) {
      const at = next.get(key);
      if (at === undefined || this.#paused.has(key)) continue;
      const floor = this.#floors.get(key);
      if (floor !== undefined && at < floor) continue;
      yield [...split(key), at];
    }
  }

  rememberCounts(counts: Map<string, number>): void {
    for (const [topic, count] of counts) this.#counts.set(topic, count);
  }

  /** Whether any topic has more partitions than at the last join. */
  grew(counts: Map<string, number>): boolean {
    return [...counts].some(([topic, count]) => {
      const before = this.#counts.get(topic);
      return before !== undefined && count > before;
    });
  }
}
