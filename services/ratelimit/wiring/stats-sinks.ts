// Where one unit's stats go besides /stats: Prometheus (always: the debug port's /metrics) and
// statsd or DogStatsD (USE_STATSD, USE_DOG_STATSD, unless DISABLE_STATS).
import type { Registry } from 'prom-client';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { TimingSink } from '../adapters/telemetry/call-stats.ts';
import { registerPrometheusStats } from '../adapters/telemetry/prometheus.ts';
import { startStatsdSink } from '../adapters/telemetry/statsd-sink.ts';
import type { StatsStore } from '../domain/stats.ts';
import type { RatelimitSettings } from '../settings/index.ts';

/** The sinks the call timer reports response times to. */
export function startStatsSinks(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
  stats: StatsStore;
  registry: Registry;
  configVersion: () => string | undefined;
  redisRoundTrips: () => number | undefined;
  gauges: () => Iterable<[string, number]>;
}): TimingSink[] {
  const { settings, logger, lifecycle, stats, gauges } = options;
  const sinks: TimingSink[] = [
    registerPrometheusStats({
      registry: options.registry,
      stats,
      configVersion: options.configVersion,
      redisRoundTrips: options.redisRoundTrips,
      gauges,
    }),
  ];
  if ((settings.useStatsd || settings.useDogStatsd) && !settings.disableStats) {
    const statsd = startStatsdSink({
      host: settings.statsdHost,
      port: settings.statsdPort,
      intervalMs: settings.statsFlushIntervalMs,
      extraTags: settings.extraTags,
      dogStatsd: settings.useDogStatsd ? { mogrifiers: settings.dogStatsdMogrifiers } : undefined,
      stats,
      gauges,
      logger,
    });
    sinks.push(statsd);
    lifecycle.onStop('statsd', () => statsd.stop());
  }
  return sinks;
}
