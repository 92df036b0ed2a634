// Controller states held in memory up to a byte budget, the least recently used evicted first: a
// state is up to 12 MiB and an experiment keeps its key after it ends, so not every state on the
// topic can stay in memory.

export class StateCache {
  readonly #maxBytes: number;
  /** Least recently used first (a Map keeps insertion order). */
  readonly #states = new Map<string, Uint8Array>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes of the states held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The key's state, without counting as a use. */
  get(key: string): Uint8Array | undefined {
    return this.#states.get(key);
  }

  /**
   * Holds `state` as the key's, the most recently used; evicts the least recently used others while
   * past the budget (a single state larger than the budget is still held).
   */
  remember(key: string, state: Uint8Array): void {
    this.forget(key);
    this.#states.set(key, state);
    this.#bytes += state.byteLength;
    for (const [oldest, evicted] of this.#states) {
      if (this.#bytes <= this.#maxBytes || oldest === key) break;
      this.#states.delete(oldest);
      this.#bytes -= evicted.byteLength;
    }
  }

  forget(key: string): void {
    const state = this.#states.get(key);
    if (state === undefined) return;
    this.#states.delete(key);
    this.#bytes -= state.byteLength;
  }
}
