// Sends the counters to statsd over UDP (STATSD_HOST:STATSD_PORT) every STATS_FLUSH_INTERVAL, as
// deltas (`name:3|c`), gauges as `name:5|g` and a sample of response times as `name:2|ms|@0.1`.
// EXTRA_TAGS are appended to every name as `.__key=value` (sorted by key), as gostats does.
import { createSocket, type Socket } from 'node:dgram';
import type { Logger } from '../../../shared/logger.ts';
import type { Counter, StatsStore } from '../domain/stats.ts';
import type { TimingSink } from './call-stats.ts';

/** Lines per datagram stay under a typical MTU. */
const MAX_DATAGRAM_BYTES = 1_400;
const MAX_TIMINGS_PER_FLUSH = 1_000;

export function tagSuffix(tags: Readonly<Record<string, string>>): string {
  return Object.keys(tags)
    .sort()
    .map((key) => `.__${key}=${tags[key]!.replace(/[.:|]/g, '_')}`)
    .join('');
}

export interface StatsdSink extends TimingSink {
  /** Sends what changed since the last flush. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export function startStatsdSink(options: {
  host: string;
  port: number;
  intervalMs: number;
  extraTags: Readonly<Record<string, string>>;
  stats: StatsStore;
  gauges: () => Iterable<[string, number]>;
  logger: Logger;
}): StatsdSink {
  const { stats, logger } = options;
  const suffix = tagSuffix(options.extraTags);
  const socket: Socket = createSocket(options.host.includes(':') ? 'udp6' : 'udp4');
  socket.on('error', (error) => logger.warn({ err: error }, 'statsd socket error'));
  socket.unref();
  const sent = new WeakMap<Counter, number>();
  let timings: string[] = [];
  let timingsSeen = 0;
  let lastError = '';

  const send = (datagram: string): Promise<void> =>
    new Promise((resolve) => {
      socket.send(datagram, options.port, options.host, (error) => {
        if (error && error.message !== lastError) {
          lastError = error.message;
          logger.warn({ err: error, host: options.host, port: options.port }, 'statsd send failed');
        }
        resolve();
      });
    });

  const flush = async (): Promise<void> => {
    const lines: string[] = [];
    for (const counter of stats.counters()) {
      const delta = counter.value - (sent.get(counter) ?? 0);
      if (delta === 0) continue;
      sent.set(counter, counter.value);
      lines.push(`${counter.name}${suffix}:${delta}|c`);
    }
    for (const [name, value] of options.gauges()) lines.push(`${name}${suffix}:${value}|g`);
    if (timings.length > 0) {
      const rate = timings.length / timingsSeen;
      const sampled = rate < 1 ? `|@${rate.toFixed(4)}` : '';
      for (const line of timings) lines.push(`${line}${sampled}`);
      timings = [];
      timingsSeen = 0;
    }
    let datagram = '';
    const pending: Array<Promise<void>> = [];
    for (const line of lines) {
      if (datagram.length > 0 && datagram.length + line.length + 1 > MAX_DATAGRAM_BYTES) {
        pending.push(send(datagram));
        datagram = '';
      }
      datagram += datagram.length > 0 ? `\n${line}` : line;
    }
    if (datagram.length > 0) pending.push(send(datagram));
    await Promise.all(pending);
  };

  const timer = setInterval(() => void flush(), options.intervalMs);
  timer.unref();

  return {
    record(method, milliseconds) {
      timingsSeen++;
      if (timings.length < MAX_TIMINGS_PER_FLUSH)
        timings.push(`ratelimit_server.${method}.response_time${suffix}:${Math.round(milliseconds)}|ms`);
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
      socket.close();
    },
  };
}
