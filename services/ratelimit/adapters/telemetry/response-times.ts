// ratelimit_service_response_time_seconds: each decision unit counts its response times in
// buckets (plain numbers a thread hands over), and the instance's /metrics shows their sum as one
// Prometheus histogram. No metrics library in the decision threads.
import type { Metric, Registry } from 'prom-client';
import type { TimingSink } from './call-stats.ts';

/** Upper bounds in seconds, as the histogram has always had them. */
export const RESPONSE_TIME_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1] as const;

/** Per method: the count of each bucket (not cumulative), of all, and the sum in seconds. */
export type ResponseTimes = Record<string, { buckets: number[]; count: number; sum: number }>;

export interface ResponseTimeSink extends TimingSink {
  snapshot(): ResponseTimes;
}

export function createResponseTimeSink(): ResponseTimeSink {
  const methods: ResponseTimes = {};
  return {
    record(method, milliseconds) {
      const times = methods[method] ?? empty();
      methods[method] = times;
      const seconds = milliseconds / 1000;
      const bucket = RESPONSE_TIME_BUCKETS.findIndex((bound) => seconds <= bound);
      if (bucket >= 0) times.buckets[bucket]! += 1;
      times.count += 1;
      times.sum += seconds;
    },
    snapshot: () => methods,
  };
}

const empty = () => ({ buckets: new Array<number>(RESPONSE_TIME_BUCKETS.length).fill(0), count: 0, sum: 0 });

/** The sum of several units' response times. */
export function sumResponseTimes(all: readonly ResponseTimes[]): ResponseTimes {
  const total: ResponseTimes = {};
  for (const times of all)
    for (const [method, own] of Object.entries(times)) {
      const into = total[method] ?? empty();
      total[method] = into;
      own.buckets.forEach((n, i) => {
        into.buckets[i]! += n;
      });
      into.count += own.count;
      into.sum += own.sum;
    }
  return total;
}

/**
 * Registers the histogram, read from `read()` at each scrape. prom-client's Histogram takes only
 * observations, so this is a metric of the shape its registry reads (`get()`), in cumulative buckets.
 */
export function registerResponseTimeHistogram(registry: Registry, read: () => ResponseTimes): void {
  const name = 'ratelimit_service_response_time_seconds';
  const metric = {
    name,
    help: 'ratelimit_server.<method>.response_time',
    type: 'histogram',
    aggregator: 'sum',
    reset: () => {},
    get: async () => ({
      name,
      help: metric.help,
      type: 'histogram',
      aggregator: 'sum',
      values: Object.entries(read()).flatMap(([method, times]) => {
        let cumulative = 0;
        const buckets = RESPONSE_TIME_BUCKETS.map((bound, i) => {
          cumulative += times.buckets[i]!;
          return {
            metricName: `${name}_bucket`,
            labels: { le: bound, grpc_method: method },
            value: cumulative,
          };
        });
        return [
          ...buckets,
          { metricName: `${name}_bucket`, labels: { le: '+Inf', grpc_method: method }, value: times.count },
          { metricName: `${name}_sum`, labels: { grpc_method: method }, value: times.sum },
          { metricName: `${name}_count`, labels: { grpc_method: method }, value: times.count },
        ];
      }),
    }),
  };
  registry.registerMetric(metric as unknown as Metric);
}
