// Sends the counters to statsd over UDP (STATSD_HOST:STATSD_PORT) every STATS_FLUSH_INTERVAL, as
// deltas (`name:3|c`), gauges as `name:5|g` and a sample of response times as `name:2|ms|@0.1`.
// EXTRA_TAGS are appended to every name as `.__key=value` (sorted by key), as gostats does.
import { createSocket, type Socket } from 'node:dgram';
import type { Logger } from '../../../../shared/logger.ts';
import type { Counter, StatsStore } from '../../domain/stats.ts';
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

/** USE_DOG_STATSD: tags as DogStatsD's `|#k:v,...`, names rewritten by the first mogrifier that matches. */
export interface DogStatsdFormat {
  readonly mogrifiers: ReadonlyArray<{
    readonly pattern: RegExp;
    readonly name: string;
    readonly tags: ReadonlyArray<readonly [string, string]>;
  }>;
}

/** `$1`..`$9` of the match in a mogrifier's name or tag value. */
const substitute = (template: string, match: RegExpExecArray): string =>
  template.replace(/\$(\d)/g, (_all, n: string) => match[Number(n)] ?? '');

/**
 * How one stat is written: `name<suffix>:value|type` (gostats, EXTRA_TAGS in the name) or, with
 * DogStatsD, `name:value|type|#tags` (EXTRA_TAGS and the mogrifier's tags as tags).
 */
export function statLineFormat(
  extraTags: Readonly<Record<string, string>>,
  dog: DogStatsdFormat | undefined,
): (name: string, valueAndType: string) => string {
  if (dog === undefined) {
    const suffix = tagSuffix(extraTags);
    return (name, valueAndType) => `${name}${suffix}:${valueAndType}`;
  }
  const extra = Object.keys(extraTags)
    .sort()
    .map((key) => `${key}:${extraTags[key]}`);
  const cache = new Map<string, { name: string; tags: string }>();
  return (name, valueAndType) => {
    let found = cache.get(name);
    if (found === undefined) {
      const tags = [...extra];
      let out = name;
      for (const mogrifier of dog.mogrifiers) {
        const match = mogrifier.pattern.exec(name);
        if (match === null) continue;
        out = substitute(mogrifier.name, match);
        for (const [key, value] of mogrifier.tags) tags.push(`${key}:${substitute(value, match)}`);
        break;
      }
      found = { name: out, tags: tags.length > 0 ? `|#${tags.join(',')}` : '' };
      if (cache.size < 10_000) cache.set(name, found);
    }
    return `${found.name}:${valueAndType}${found.tags}`;
  };
}

export function startStatsdSink(options: {
  host: string;
  port: number;
  intervalMs: number;
  extraTags: Readonly<Record<string, string>>;
  dogStatsd?: DogStatsdFormat;
  stats: StatsStore;
  gauges: () => Iterable<[string, number]>;
  logger: Logger;
}): StatsdSink {
  const { stats, logger } = options;
  const line = statLineFormat(options.extraTags, options.dogStatsd);
  const socket: Socket = createSocket(options.host.includes(':') ? 'udp6' : 'udp4');
  socket.on('error', (error) => logger.warn({ err: error }, 'statsd socket error'));
  socket.unref();
  const sent = new WeakMap<Counter, number>();
  let timings: Array<[string, number]> = [];
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
      lines.push(line(counter.name, `${delta}|c`));
    }
    for (const [name, value] of options.gauges()) lines.push(line(name, `${value}|g`));
    if (timings.length > 0) {
      const rate = timings.length / timingsSeen;
      const sampled = rate < 1 ? `|@${rate.toFixed(4)}` : '';
      for (const [name, ms] of timings) lines.push(line(name, `${ms}|ms${sampled}`));
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
        timings.push([`ratelimit_server.${method}.response_time`, Math.round(milliseconds)]);
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
      socket.close();
    },
  };
}
