// The Redis counter store's connection alone, in this process: 100 concurrent decisions, each one
// pipeline of INCRBY + EXPIRE, through the lean RESP connection and through ioredis, against the
// real Redis. What the lean connection saves per decision, without HTTP, gRPC or a second process.
import type { CounterConnection } from '../../services/ratelimit/adapters/redis/counter-connection.ts';
import { ioredisCounterConnection, respCounterConnection } from '../../test/helpers/counter-connections.ts';

export interface StoreCell {
  readonly client: string;
  readonly decisionsPerSecond: number;
  readonly cpuUs: number;
}

const CALLERS = 100;

export async function measureStore(redisUrl: string, prefix: string, ms: number): Promise<StoreCell[]> {
  const clients: Array<[string, () => CounterConnection]> = [
    ['lean RESP', () => respCounterConnection(redisUrl, 10_000)],
    ['ioredis', () => ioredisCounterConnection(redisUrl, 10_000)],
  ];
  const cells: StoreCell[] = [];
  for (const [client, make] of clients) {
    const connection = make();
    try {
      await connection.whenReady(10_000);
      const items = Array.from({ length: CALLERS }, (_, caller) => [
        { key: `${prefix}store-${caller}`, addend: 1, windowSeconds: 60, perSecond: false },
      ]);
      const expiry = (windowSeconds: number): number => windowSeconds;
      const run = async (duration: number): Promise<number> => {
        let decisions = 0;
        const until = performance.now() + duration;
        await Promise.all(
          items.map(async (item) => {
            while (performance.now() < until) {
              await connection.increment(item, expiry);
              decisions++;
            }
          }),
        );
        return decisions;
      };
      await run(Math.min(500, ms));
      const cpu = process.cpuUsage();
      const started = performance.now();
      const decisions = await run(ms);
      const used = process.cpuUsage(cpu);
      cells.push({
        client,
        decisionsPerSecond: Math.round((decisions * 1000) / (performance.now() - started)),
        cpuUs: (used.user + used.system) / decisions,
      });
    } finally {
      await connection.close();
    }
  }
  return cells;
}
