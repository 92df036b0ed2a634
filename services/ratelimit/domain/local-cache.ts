// The in-process cache of keys already over their limit (LOCAL_CACHE_SIZE_IN_BYTES): while a key is
// in it, decisions for it skip the store. Time comes in as an argument; nothing here reads a clock.

/** Bytes an entry costs besides its key, as freecache's entry header does. */
const ENTRY_OVERHEAD_BYTES = 24;

export interface LocalCacheStats {
  readonly entryCount: number;
  readonly hitCount: number;
  readonly missCount: number;
  readonly lookupCount: number;
  readonly expiredCount: number;
  readonly evacuateCount: number;
  readonly overwriteCount: number;
}

export interface OverLimitCache {
  /** Whether `key` was marked over limit and its window has not ended at `nowMs`. */
  has(key: string, nowMs: number): boolean;
  /** As `has`, answering until when (Unix ms) the key stays over, or 0 when it is not. */
  overUntil(key: string, nowMs: number): number;
  /** Marks `key` over limit until `nowMs + ttlSeconds`; the oldest entries make room. */
  add(key: string, ttlSeconds: number, nowMs: number): void;
  stats(): LocalCacheStats;
}

export function createOverLimitCache(sizeInBytes: number): OverLimitCache {
  // Map keeps insertion order: the first entries are the oldest, evicted first.
  const expiries = new Map<string, number>();
  let usedBytes = 0;
  let hitCount = 0;
  let missCount = 0;
  let expiredCount = 0;
  let evacuateCount = 0;
  let overwriteCount = 0;

  const cost = (key: string): number => ENTRY_OVERHEAD_BYTES + Buffer.byteLength(key);
  const remove = (key: string): void => {
    if (expiries.delete(key)) usedBytes -= cost(key);
  };

  function overUntil(key: string, nowMs: number): number {
    const expiry = expiries.get(key);
    if (expiry === undefined) {
      missCount++;
      return 0;
    }
    if (expiry <= nowMs) {
      remove(key);
      expiredCount++;
      missCount++;
      return 0;
    }
    hitCount++;
    return expiry;
  }

  return {
    has: (key, nowMs) => overUntil(key, nowMs) > 0,
    overUntil,
    add(key, ttlSeconds, nowMs) {
      const needed = cost(key);
      if (needed > sizeInBytes) return;
      if (expiries.has(key)) {
        remove(key);
        overwriteCount++;
      }
      for (const oldest of expiries.keys()) {
        if (usedBytes + needed <= sizeInBytes) break;
        remove(oldest);
        evacuateCount++;
      }
      expiries.set(key, nowMs + ttlSeconds * 1000);
      usedBytes += needed;
    },
    stats: () => ({
      entryCount: expiries.size,
      hitCount,
      missCount,
      lookupCount: hitCount + missCount,
      expiredCount,
      evacuateCount,
      overwriteCount,
    }),
  };
}
