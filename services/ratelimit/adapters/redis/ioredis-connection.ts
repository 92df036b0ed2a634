// A counter-store connection driven by ioredis: sentinel, cluster and TLS connections.
import type { Cluster, Redis } from 'ioredis';
import type { LimitReply } from '../../ports.ts';
import type { ConnectionEvents, CounterConnection } from './counter-connection.ts';
import {
  limitReply,
  SLIDING_WINDOW_SCRIPT,
  scriptArguments,
  scriptOf,
  TOKEN_BUCKET_SCRIPT,
} from './limit-scripts.ts';

export function createIoredisConnection(
  client: Redis | Cluster,
  events: ConnectionEvents,
): CounterConnection {
  // Pipelines on one connection are answered in order: the oldest waiting one tells whether the
  // connection hangs, without ioredis's timer per command.
  const sentAt: number[] = [];
  client.on('error', (error: Error) => events.onError(error));
  client.on('ready', () => events.onReady());
  client.on('close', () => events.onClose());
  // ioredis sends EVALSHA, and EVAL the first time on each connection or when the server lost it;
  // a cluster client sends each to the node of its key.
  for (const script of [SLIDING_WINDOW_SCRIPT, TOKEN_BUCKET_SCRIPT])
    client.defineCommand(script.name, { numberOfKeys: 1, lua: script.lua });
  const scripts = client as unknown as Record<string, (key: string, ...args: string[]) => Promise<unknown>>;

  return {
    get ready() {
      if (client.status !== 'ready') return false;
      // ioredis ends the stream at +switch-master and says 'ready' until it closes: not writable.
      const stream = 'stream' in client ? client.stream : undefined;
      return stream === undefined || (stream.writable && !stream.writableEnded);
    },
    async increment(items, expiry) {
      const pipeline = client.pipeline();
      for (const item of items) {
        pipeline.incrby(item.key, item.addend);
        pipeline.expire(item.key, expiry(item.windowSeconds));
      }
      const at = performance.now();
      sentAt.push(at);
      let replies: Array<[Error | null, unknown]> | null;
      try {
        replies = await pipeline.exec();
      } finally {
        const index = sentAt.indexOf(at);
        if (index === 0) sentAt.shift();
        else if (index > 0) sentAt.splice(index, 1);
      }
      if (replies === null) throw new Error('pipeline was not executed');
      const counts = new Array<number>(items.length);
      for (let i = 0; i < items.length; i++) {
        const [error, value] = replies[2 * i]!;
        if (error !== null) throw new Error(`INCRBY ${items[i]!.key}: ${error.message}`);
        const expireError = replies[2 * i + 1]![0];
        if (expireError !== null) throw new Error(`EXPIRE ${items[i]!.key}: ${expireError.message}`);
        counts[i] = Number(value);
      }
      return counts;
    },
    async take(operations) {
      const at = performance.now();
      sentAt.push(at);
      try {
        return await Promise.all(
          operations.map(async (operation): Promise<LimitReply> => {
            try {
              const reply = await scripts[scriptOf(operation).name]!(
                operation.key,
                ...scriptArguments(operation),
              );
              return limitReply(reply as number[]);
            } catch (error) {
              throw new Error(`EVALSHA ${operation.key}: ${(error as Error).message}`);
            }
          }),
        );
      } finally {
        const index = sentAt.indexOf(at);
        if (index === 0) sentAt.shift();
        else if (index > 0) sentAt.splice(index, 1);
      }
    },
    ping: () => client.ping(),
    whenReady(timeoutMs) {
      if (client.status === 'ready') return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const done = (error?: Error): void => {
          clearTimeout(timer);
          client.off('ready', onReady);
          client.off('error', done);
          if (error === undefined) resolve();
          else reject(error);
        };
        const onReady = (): void => done();
        const timer = setTimeout(() => done(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
        client.once('ready', onReady);
        client.once('error', done);
      });
    },
    stalled(nowMs, timeoutMs) {
      return sentAt.length > 0 && nowMs - sentAt[0]! > timeoutMs;
    },
    reset() {
      sentAt.length = 0;
      client.disconnect(true);
    },
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
