// /stats and /metrics for the whole instance: every decision unit's report summed (the counters and
// gauges, Redis round trips, response times), plus each unit's own lines and the number that
// answered. The Prometheus registry lives in the main thread only.
import type { Registry } from 'prom-client';
import { registerPrometheusStats } from '../adapters/telemetry/prometheus.ts';
import { sumResponseTimes } from '../adapters/telemetry/response-times.ts';
import { createStatsStore, type StatsStore, sumStatsLines } from '../domain/stats.ts';
import type { UnitReport } from './decision-unit.ts';

export interface InstanceStats {
  /** Asks every decision thread for its report (one that does not answer in time counts as none) and sums them. */
  collect(): Promise<Iterable<[string, number]>>;
  /** The Prometheus text of the instance. */
  metrics(): Promise<string>;
}

export function createInstanceStats(options: {
  /** The main thread's unit's report. */
  own: () => UnitReport;
  /** The decision threads' reports. */
  threads: () => Promise<UnitReport[]>;
  /** The main thread's registry (process metrics, the configuration follower's). */
  registry: Registry;
  configVersion: () => string | undefined;
}): InstanceStats {
  const reports = async (): Promise<UnitReport[]> => [options.own(), ...(await options.threads())];
  const sum = (all: readonly UnitReport[]): Map<string, number> => {
    const sums = new Map<string, number>();
    for (const report of all)
      for (const [name, value] of report.lines) sums.set(name, (sums.get(name) ?? 0) + value);
    sums.set('ratelimit.workers', all.length);
    return sums;
  };

  // What the Prometheus collectors read: the sum as of the scrape under way.
  let view: { stats: StatsStore; sums: Map<string, number>; all: UnitReport[] } = {
    stats: createStatsStore(),
    sums: new Map(),
    all: [],
  };
  registerPrometheusStats({
    registry: options.registry,
    stats: () => view.stats,
    configVersion: options.configVersion,
    redisRoundTrips: () =>
      view.all.some((r) => r.redisRoundTrips !== undefined)
        ? view.all.reduce((n, r) => n + (r.redisRoundTrips ?? 0), 0)
        : undefined,
    gauges: () => [...view.sums].filter(([name]) => name.startsWith('ratelimit.localcache.')),
    responseTimes: () => sumResponseTimes(view.all.map((r) => r.responseTimes)),
  });

  return {
    collect: async () => sum(await reports()),
    async metrics() {
      const all = await reports();
      const sums = sum(all);
      view = { stats: sumStatsLines(sums), sums, all };
      return options.registry.metrics();
    },
  };
}
