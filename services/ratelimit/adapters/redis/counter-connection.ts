// One connection of the Redis counter store, whichever client drives it: the lean RESP connection
// (single node over TCP or a unix socket) or ioredis (sentinel, cluster, TLS).
import type { CounterIncrement, LimitOperation, LimitReply } from '../../ports.ts';

export interface CounterConnection {
  /** Connected, and answered its ready check; a connection that is not ready refuses at once. */
  readonly ready: boolean;
  /**
   * INCRBY key addend, then EXPIRE key expiry(windowSeconds), for every item, pipelined (not
   * MULTI). Resolves with each counter after its INCRBY, in order. Rejects with an Error whose
   * message is the failure as text (`INCRBY <key>: <redis error>`, or the connection's failure).
   */
  increment(items: readonly CounterIncrement[], expiry: (windowSeconds: number) => number): Promise<number[]>;
  /**
   * One script per operation (./limit-scripts.ts), by EVALSHA (EVAL when the server lost it),
   * pipelined. Resolves with each reply, in order. Rejects like `increment`
   * (`EVALSHA <key>: <redis error>`, or the connection's failure).
   */
  take(operations: readonly LimitOperation[]): Promise<LimitReply[]>;
  /** PING; resolves with the reply text. */
  ping(): Promise<string>;
  /** Resolves once ready; rejects on the next connection error or after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<void>;
  /** Whether requests have been waiting more than `timeoutMs` without any answer. */
  stalled(nowMs: number, timeoutMs: number): boolean;
  /** Drops the connection, failing what waits; it reconnects by itself. */
  reset(): void;
  /** Ends the connection for good (QUIT when connected). */
  close(): Promise<void>;
}

/** What a connection tells its pool. */
export interface ConnectionEvents {
  onReady(): void;
  onClose(): void;
  onError(error: Error): void;
}

/**
 * Reconnects quickly (25 ms doubling to 200 ms): decisions resume within a fifth of a second of Redis
 * answering again. A refused connection costs a few microseconds, so the short ceiling is cheap.
 */
export const retryDelayMs = (attempt: number): number => Math.min(25 * 2 ** Math.min(attempt - 1, 3), 200);
