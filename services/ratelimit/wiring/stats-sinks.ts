// Where one unit's response times go besides its own counters: the buckets the instance's /metrics
// sums (always) and statsd or DogStatsD (USE_STATSD, USE_DOG_STATSD, unless DISABLE_STATS).
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { TimingSink } from '../adapters/telemetry/call-stats.ts';
import { createResponseTimeSink, type ResponseTimeSink } from '../adapters/telemetry/response-times.ts';
import type { StatsStore } from '../domain/stats.ts';
import type { RatelimitSettings } from '../settings/index.ts';

/** The sinks the call timer reports response times to; the first keeps them for /metrics. */
export async function startStatsSinks(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
  stats: StatsStore;
  gauges: () => Iterable<[string, number]>;
}): Promise<{ responseTimes: ResponseTimeSink; sinks: TimingSink[] }> {
  const { settings, logger, lifecycle, stats, gauges } = options;
  const responseTimes = createResponseTimeSink();
  const sinks: TimingSink[] = [responseTimes];
  if ((settings.useStatsd || settings.useDogStatsd) && !settings.disableStats) {
    // Loaded only when used: a decision thread without statsd does not load it.
    const { startStatsdSink } = await import('../adapters/telemetry/statsd-sink.ts');
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
  return { responseTimes, sinks };
}
