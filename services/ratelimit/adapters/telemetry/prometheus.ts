// The same counters on Prometheus, named as statsd_exporter's default ratelimit mapping names them
// (ratelimit_service_rate_limit_total_hits{domain,key1,key2}, ...), read at scrape time from the
// instance's stats (every decision unit's, summed), plus what only this implementation has (config
// version, Redis round trips, response times).
import { Gauge, Counter as PromCounter, type Registry } from 'prom-client';
import { RULE_STATS, SERVICE_STATS, type StatsStore } from '../../domain/stats.ts';
import { type ResponseTimes, registerResponseTimeHistogram } from './response-times.ts';

export function registerPrometheusStats(options: {
  registry: Registry;
  /** The instance's stats as of this scrape. */
  stats: () => StatsStore;
  configVersion: () => string | undefined;
  redisRoundTrips: () => number | undefined;
  gauges: () => Iterable<[string, number]>;
  responseTimes: () => ResponseTimes;
}): void {
  const { registry } = options;
  const stats = {
    counter: (name: string) => options.stats().counter(name),
    counters: () => options.stats().counters(),
    ruleCounters: () => options.stats().ruleCounters(),
  };
  const registers = [registry];

  for (const stat of RULE_STATS) {
    new PromCounter({
      name: `ratelimit_service_rate_limit_${stat}`,
      help: `ratelimit.service.rate_limit.<domain>.<key>.${stat}`,
      labelNames: ['domain', 'key1', 'key2'],
      registers,
      collect() {
        this.reset();
        for (const counter of stats.ruleCounters())
          if (counter.stat === stat && counter.value > 0)
            this.inc({ domain: counter.domain, key1: counter.key1, key2: counter.key2 }, counter.value);
      },
    });
  }

  const single = (name: string, help: string, statName: string): void => {
    new PromCounter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(stats.counter(statName).value);
      },
    });
  };
  single(
    'ratelimit_service_config_load_success',
    SERVICE_STATS.configLoadSuccess,
    SERVICE_STATS.configLoadSuccess,
  );
  single('ratelimit_service_config_load_error', SERVICE_STATS.configLoadError, SERVICE_STATS.configLoadError);
  single(
    'ratelimit_service_global_shadow_mode',
    SERVICE_STATS.globalShadowMode,
    SERVICE_STATS.globalShadowMode,
  );

  new PromCounter({
    name: 'ratelimit_service_should_rate_limit_error',
    help: 'ratelimit.service.call.should_rate_limit.<err_type>',
    labelNames: ['err_type'],
    registers,
    collect() {
      this.reset();
      this.inc({ err_type: 'redis_error' }, stats.counter(SERVICE_STATS.redisError).value);
      this.inc({ err_type: 'service_error' }, stats.counter(SERVICE_STATS.serviceError).value);
    },
  });

  new PromCounter({
    name: 'ratelimit_service_rate_limit_domain_not_found',
    help: 'ratelimit.service.rate_limit.<domain>.domain_not_found',
    labelNames: ['domain'],
    registers,
    collect() {
      this.reset();
      for (const counter of stats.counters()) {
        const match = /^ratelimit\.service\.rate_limit\.(.+)\.domain_not_found$/.exec(counter.name);
        if (match) this.inc({ domain: match[1]! }, counter.value);
      }
    },
  });

  new PromCounter({
    name: 'ratelimit_service_total_requests',
    help: 'ratelimit_server.<method>.total_requests',
    labelNames: ['grpc_method'],
    registers,
    collect() {
      this.reset();
      this.inc({ grpc_method: 'ShouldRateLimit' }, stats.counter(SERVICE_STATS.shouldRateLimitTotal).value);
    },
  });

  new Gauge({
    name: 'ratelimit_config_version_info',
    help: 'The configuration this instance applies (value 1, version as a label)',
    labelNames: ['version'],
    registers,
    collect() {
      this.reset();
      const version = options.configVersion();
      if (version !== undefined) this.set({ version }, 1);
    },
  });

  new PromCounter({
    name: 'ratelimit_redis_round_trips',
    help: 'Pipelines sent to Redis (one round trip each)',
    registers,
    collect() {
      this.reset();
      this.inc(options.redisRoundTrips() ?? 0);
    },
  });

  new Gauge({
    name: 'ratelimit_localcache',
    help: 'ratelimit.localcache.<stat>',
    labelNames: ['stat'],
    registers,
    collect() {
      this.reset();
      for (const [name, value] of options.gauges())
        if (name.startsWith('ratelimit.localcache.')) this.set({ stat: name.slice(21) }, value);
    },
  });

  registerResponseTimeHistogram(registry, options.responseTimes);
}
