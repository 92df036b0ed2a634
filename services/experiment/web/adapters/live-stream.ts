// Server-Sent Events of new observations, status changes, early-stopping rules and trials: one
// reader per topic per process (readTopic from the end, following), fanned out to every open stream.
// A write never waits for a browser: a stream whose unsent bytes pass the limit is closed (the
// browser's EventSource reconnects and reloads), so a slow one cannot hold back the others.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Counter, Gauge, type Registry } from 'prom-client';
import {
  type Bus,
  type ConsumedEvent,
  readTopic,
  TOPICS,
  type TopicReader,
} from '../../../../shared/bus/index.ts';
import type { Logger } from '../../../../shared/logger.ts';

export interface StreamFilter {
  readonly experiment?: string;
  readonly trial?: string;
}

export interface LiveMessage {
  /** SSE event name: observations, status, rules, trials. */
  readonly type: 'observations' | 'status' | 'rules' | 'trials';
  readonly experiment: string | undefined;
  readonly trial: string | undefined;
  readonly data: unknown;
}

export interface LiveHub {
  /**
   * Streams to `res` until the client goes away or falls behind. `seed` tells which trials belong to
   * which experiment as the read model knows it (observations name only their trial).
   */
  attach(
    res: ServerResponse,
    filter: StreamFilter,
    seed?: { experiment: string; trials: readonly string[] },
  ): void;
  /** Fans one message out (also used by tests); never waits. */
  publish(message: LiveMessage): void;
  readonly clients: () => number;
  stop(): Promise<void>;
}

interface Client {
  readonly res: ServerResponse;
  readonly filter: StreamFilter;
}

/** The hub alone (no Kafka): tests drive it with publish. */
export function createLiveHub(options: {
  maxBufferedBytes: number;
  heartbeatMs?: number;
  logger: Logger;
  registry?: Registry;
}): LiveHub {
  const clients = new Set<Client>();
  // Observations carry only the trial: the trial's experiment is learned from the other events.
  const experimentOf = new Map<string, string>();
  const registers = options.registry ? [options.registry] : [];
  const open = new Gauge({ name: 'experiment_sse_clients', help: 'Open live streams', registers });
  const dropped = new Counter({
    name: 'experiment_sse_dropped_total',
    help: 'Live streams closed because the client read too slowly',
    registers,
  });
  let nextId = 1;

  const remove = (client: Client): void => {
    if (clients.delete(client)) open.set(clients.size);
  };
  const write = (client: Client, chunk: string): void => {
    if (client.res.destroyed) {
      remove(client);
      return;
    }
    client.res.write(chunk);
    if (client.res.writableLength > options.maxBufferedBytes) {
      dropped.inc();
      options.logger.info(
        { filter: client.filter, bufferedBytes: client.res.writableLength },
        'closing a live stream whose client reads too slowly',
      );
      remove(client);
      client.res.destroy();
    }
  };
  const heartbeat = setInterval(() => {
    for (const client of clients) write(client, ': keep-alive\n\n');
  }, options.heartbeatMs ?? 15_000);
  heartbeat.unref();

  const matches = (filter: StreamFilter, m: LiveMessage): boolean => {
    if (filter.trial !== undefined)
      return (
        m.trial === filter.trial ||
        (m.type === 'rules' && m.experiment !== undefined && m.experiment === experimentOf.get(filter.trial))
      );
    if (filter.experiment !== undefined)
      return (
        (m.experiment ?? (m.trial === undefined ? undefined : experimentOf.get(m.trial))) ===
        filter.experiment
      );
    return true;
  };

  return {
    attach: (res, filter, seed) => {
      if (seed && seed.experiment !== '') for (const t of seed.trials) experimentOf.set(t, seed.experiment);
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      res.write(`retry: 2000\n: ${JSON.stringify(filter)}\n\n`);
      const client: Client = { res, filter };
      clients.add(client);
      open.set(clients.size);
      res.on('close', () => remove(client));
    },
    publish: (m) => {
      if (m.trial !== undefined && m.experiment !== undefined && m.experiment !== '')
        experimentOf.set(m.trial, m.experiment);
      if (m.type === 'trials' && m.experiment !== undefined)
        for (const t of (m.data as { trials: string[] }).trials) experimentOf.set(t, m.experiment);
      if (clients.size === 0) return;
      const chunk = `id: ${nextId++}\nevent: ${m.type}\ndata: ${JSON.stringify(m.data)}\n\n`;
      for (const client of clients) if (matches(client.filter, m)) write(client, chunk);
    },
    clients: () => clients.size,
    stop: async () => {
      clearInterval(heartbeat);
      for (const client of clients) client.res.end();
      clients.clear();
      open.set(0);
    },
  };
}

/** What an event of the four topics shows a live page; undefined for events it does not show. */
export function toLiveMessage(event: ConsumedEvent): LiveMessage | undefined {
  switch (event.eventType) {
    case 'ObservationLogReported': {
      const p = event.payload;
      return {
        type: 'observations',
        experiment: undefined,
        trial: p.trial_name,
        data: {
          trial: p.trial_name,
          logs: p.metric_logs.map((l) => ({ time: l.time_stamp, metric: l.metric_name, value: l.value })),
        },
      };
    }
    case 'TrialStatusChanged': {
      const p = event.payload;
      const experiment = p.experiment_name === '' ? undefined : p.experiment_name;
      return {
        type: 'status',
        experiment,
        trial: p.trial_name,
        data: {
          trial: p.trial_name,
          experiment: p.experiment_name,
          condition: p.condition,
          reason: p.reason,
          message: p.message,
          atMs: p.occurred_at.getTime(),
        },
      };
    }
    case 'EarlyStoppingRulesIssued': {
      const p = event.payload;
      return {
        type: 'rules',
        experiment: p.experiment_name,
        trial: undefined,
        data: {
          experiment: p.experiment_name,
          objectiveMetric: p.objective_metric,
          objectiveType: p.objective_type,
          rules: p.rules.map((r) => ({
            name: r.name,
            value: r.value,
            comparison: r.comparison,
            startStep: r.start_step,
          })),
        },
      };
    }
    case 'SuggestionsIssued': {
      const p = event.payload;
      return {
        type: 'trials',
        experiment: p.experiment_name,
        trial: undefined,
        data: { experiment: p.experiment_name, trials: p.trials.map((t) => t.name).filter((n) => n !== '') },
      };
    }
    default:
      return undefined;
  }
}

/**
 * The hub fed from Kafka: one reader per topic, from the topics' ends. A reader that cannot start or
 * fails later is started again (from the end it then has) after a growing pause: the page works
 * without live updates meanwhile, and the service never fails for want of them.
 */
export function startLiveStream(options: { bus: Bus; hub: LiveHub; logger: Logger }): {
  /** Resolves once every reader started once (it may have failed and be retrying since). */
  readonly started: Promise<void>;
  stop(): Promise<void>;
} {
  const topics = [TOPICS.observations, TOPICS.trialStatus, TOPICS.earlyStoppingRules, TOPICS.suggestions];
  const stopping = new AbortController();
  const readers = new Set<TopicReader>();
  const starts: Promise<void>[] = [];

  const follow = async (topic: string, startedOnce: () => void): Promise<void> => {
    for (let attempt = 0; !stopping.signal.aborted; attempt++) {
      try {
        const reader = await readTopic(options.bus, {
          topic,
          from: 'end',
          until: 'follow',
          onEvent: (event) => {
            const message = toLiveMessage(event);
            if (message) options.hub.publish(message);
          },
        });
        readers.add(reader);
        startedOnce();
        if (stopping.signal.aborted) await reader.stop();
        await reader.done.finally(() => readers.delete(reader));
        if (stopping.signal.aborted) return;
        attempt = 0;
      } catch (error) {
        if (stopping.signal.aborted) return;
        options.logger.warn({ err: error, topic, attempt }, 'a live stream reader failed; starting it again');
      }
      const pauseMs = Math.min(30_000, 500 * 2 ** attempt);
      await sleep(pauseMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  };
  const running = topics.map((topic) => {
    let startedOnce = (): void => {};
    starts.push(new Promise<void>((resolve) => (startedOnce = resolve)));
    return follow(topic.name, startedOnce);
  });

  return {
    started: Promise.all(starts).then(() => undefined),
    stop: async () => {
      stopping.abort();
      await Promise.all([...readers].map((r) => r.stop()));
      await Promise.allSettled(running);
      await options.hub.stop();
    },
  };
}
