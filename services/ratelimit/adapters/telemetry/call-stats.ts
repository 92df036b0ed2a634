// ratelimit_server.<Method>.total_requests and .response_time (integer milliseconds), as
// envoyproxy/ratelimit's gRPC interceptor counts them.
import type { Counter, StatsStore } from '../../domain/stats.ts';

export interface CallTimer {
  /** A start mark (high-resolution milliseconds). */
  start(): number;
  stop(started: number): void;
}

export interface TimingSink {
  /** One response time, in milliseconds. */
  record(method: string, milliseconds: number): void;
}

export function createCallTimer(method: string, stats: StatsStore, sinks: readonly TimingSink[]): CallTimer {
  const total: Counter = stats.counter(`ratelimit_server.${method}.total_requests`);
  return {
    start: () => performance.now(),
    stop(started) {
      total.value++;
      const elapsed = performance.now() - started;
      for (const sink of sinks) sink.record(method, elapsed);
    },
  };
}
