// Server-Sent Events fanned out to every open stream that wants them. A write never waits for a
// browser: a stream whose unsent bytes pass the limit is closed (the browser's EventSource
// reconnects and reloads), so a slow one cannot hold back the others.
import type { ServerResponse } from 'node:http';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../../../../shared/logger.ts';
import type { LiveMessage } from '../live-messages.ts';

export interface StreamFilter {
  readonly experiment?: string;
  readonly trial?: string;
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
