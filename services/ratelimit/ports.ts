// What the decision path needs from the outside world.
import type { Algorithm, LimitSpec, RateLimitConfig } from './config/index.ts';

/** One counter to add to: the cache key of a limit in its current window. */
export interface CounterIncrement {
  readonly key: string;
  /** Hits to add; 0 reads the counter without consuming (and still refreshes its expiry). */
  readonly addend: number;
  /** The window's length; the store adds its expiration jitter. */
  readonly windowSeconds: number;
  /** A SECOND limit: goes to the per-second store when there is one. */
  readonly perSecond: boolean;
}

/** One request on a sliding window or a token bucket: decided and counted in one atomic step. */
export interface LimitOperation {
  readonly key: string;
  /** A sliding_window or token_bucket limit. */
  readonly spec: LimitSpec;
  readonly addend: number;
  /** false: only whether the hits would be admitted (STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT's read). */
  readonly consume: boolean;
  /** The decision's time (Unix ms): windows and buckets are functions of it, as fixed windows are. */
  readonly nowMs: number;
  /** A SECOND limit: goes to the per-second store when there is one. */
  readonly perSecond: boolean;
}

/** What an operation found and did. */
export interface LimitReply {
  readonly admitted: boolean;
  /**
   * The state before the operation, as numbers: sliding_window `[sub-window, hits, ...]` (those still
   * counted), token_bucket `[ms, ticks]` of its TAT, or `[]` for a full bucket.
   */
  readonly before: readonly number[];
}

export interface CounterStore {
  /**
   * Adds every increment to its counter and resolves with each counter's value after the
   * addition, in order. Redis: INCRBY + EXPIRE of all keys in one pipelined round trip per store.
   * memcached: the values read before the (asynchronous) increments, plus the addends.
   * Rejects with an AppError (code UNKNOWN, the store's error text) when the store fails: callers
   * count it as `redis_error` and answer the reference's error.
   */
  increment(items: readonly CounterIncrement[]): Promise<readonly number[]>;
  /**
   * Sliding windows and token buckets: each operation decided and, when admitted and `consume`,
   * counted atomically against the store's state (Redis: one script per operation, its key alone in
   * its hash slot; memcached: gets + cas, retried when another writer came first), so it is exact
   * however many instances share the store. Resolves with each reply, in order. Redis rejects as
   * `increment` does; memcached fails open as it does for counters (logged, the hits admitted).
   * Absent on stores that only count fixed windows (test fakes).
   */
  take?(operations: readonly LimitOperation[]): Promise<readonly LimitReply[]>;
  /** Whether the store answers now (PING); used by the health check. */
  healthy(): boolean;
  close(): Promise<void>;
}

/** A key in one of the stores: the per-second one (REDIS_PERSECOND) or the main one. */
export interface StoredKey {
  readonly key: string;
  readonly perSecond: boolean;
}

/** What GET /counters reads: the keys a store holds and what they hold. */
export interface CounterReader {
  /**
   * A page of at most `count` keys matching `pattern` (a Redis glob) from `cursor` ('' to start)
   * on, and the cursor of the next page ('' when done; a page may hold fewer keys before the end).
   * Absent when the store cannot list its keys (memcached). Rejects with an AppError:
   * INVALID_ARGUMENT for a cursor it did not give, UNAVAILABLE when the store does not answer.
   */
  readonly scan?: (
    pattern: string,
    cursor: string,
    count: number,
  ) => Promise<{ keys: StoredKey[]; cursor: string }>;
  /**
   * What each key holds, as numbers: a fixed window `[count]`, a sliding window `[sub-window,
   * hits, ...]`, a token bucket `[ms, ticks]` (its TAT); `[]` for a key the store does not hold.
   */
  read(keys: ReadonlyArray<StoredKey & { readonly algorithm: Algorithm }>): Promise<Array<readonly number[]>>;
  close(): Promise<void>;
}

/** A configuration as a source loaded it (parsed and validated once), and where it came from. */
export interface SourcedConfig {
  readonly config: RateLimitConfig;
  /** `files`, `xds`, or `kafka:<publisher>`. */
  readonly source: string;
  readonly mergeDomainConfig: boolean;
}

/**
 * Where configurations come from: the runtime folder, an xDS management server, or the
 * ratelimit.config topic (envoyproxy/ratelimit's providers).
 */
export interface ConfigSource {
  /**
   * Starts watching, streaming or following, and resolves once it does (rejects when it cannot
   * start). `onConfig` receives every configuration that loaded, in order, each loaded once; one
   * that does not load never reaches it (the source counts and logs it, or NACKs it), so the last
   * good one stays in force. `onConfig` must not throw.
   */
  start(onConfig: (loaded: SourcedConfig) => void): Promise<void>;
  /** Stops watching; nothing reaches `onConfig` after it resolves. */
  stop(): Promise<void>;
}
