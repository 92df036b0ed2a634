// Reports this process had acknowledged that its own persistence consumer has not applied yet, kept
// as the time each range of offsets was acknowledged: how long ago the oldest of them was
// acknowledged is how far behind the store (and every read barrier on it) is. Pure: the caller
// passes the time.

interface Mark {
  /** Every offset before this one was written by then. */
  next: bigint;
  /** When it was acknowledged (ms). */
  readonly at: number;
}

/** Acknowledgements closer together than this share a mark (ms). */
const RESOLUTION_MS = 5;
/** Marks kept per partition at most; past it, new ones join the last (ages then read high, not low). */
const MAX_MARKS = 1_024;

export class IngestBacklog {
  readonly #marks = new Map<number, Mark[]>();
  readonly #applied = new Map<number, bigint>();
  #assigned: ReadonlySet<number> = new Set();

  /** The partitions this process's consumer applies now; acknowledgements on others are not its to wait for. */
  assign(partitions: Iterable<number>): void {
    this.#assigned = new Set(partitions);
    for (const partition of this.#marks.keys())
      if (!this.#assigned.has(partition)) this.#marks.delete(partition);
  }

  /** Offsets before `next` on the partition were acknowledged at `at`. */
  written(partition: number, next: bigint, at: number): void {
    if (!this.#assigned.has(partition) || next <= (this.#applied.get(partition) ?? -1n)) return;
    const marks = this.#marks.get(partition) ?? [];
    if (marks.length === 0) this.#marks.set(partition, marks);
    const last = marks.at(-1);
    if (last && (at - last.at < RESOLUTION_MS || marks.length >= MAX_MARKS)) {
      if (next > last.next) last.next = next;
    } else if (!last || next > last.next) marks.push({ next, at });
  }

  /** Everything before `next` on the partition is in the store. */
  applied(partition: number, next: bigint): void {
    if (next > (this.#applied.get(partition) ?? -1n)) this.#applied.set(partition, next);
    const marks = this.#marks.get(partition);
    if (!marks) return;
    let drained = 0;
    while (drained < marks.length && marks[drained]!.next <= next) drained += 1;
    if (drained === marks.length) this.#marks.delete(partition);
    else if (drained > 0) marks.splice(0, drained);
  }

  /** How long ago the oldest acknowledged, unapplied write was acknowledged; 0 when none. */
  lagMs(now: number): number {
    let oldest = now;
    for (const marks of this.#marks.values()) if (marks[0]!.at < oldest) oldest = marks[0]!.at;
    return now - oldest;
  }
}
