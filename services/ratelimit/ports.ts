// What the decision path needs from the outside world.
import type { RateLimitConfig } from './config/index.ts';

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

export interface CounterStore {
  /**
   * Adds every increment to its counter and resolves with each counter's value after the
   * addition, in order. Redis: INCRBY + EXPIRE of all keys in one pipelined round trip per store.
   * memcached: the values read before the (asynchronous) increments, plus the addends.
   * Rejects with an AppError (code UNKNOWN, the store's error text) when the store fails: callers
   * count it as `redis_error` and answer the reference's error.
   */
  increment(items: readonly CounterIncrement[]): Promise<readonly number[]>;
  /** Whether the store answers now (PING); used by the health check. */
  healthy(): boolean;
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
