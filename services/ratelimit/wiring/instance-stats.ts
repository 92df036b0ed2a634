// /stats for the whole instance: every decision process's counters and gauges summed, plus each
// one's own lines, the number that answered, and the counters only the primary keeps.
import type { Worker } from 'node:cluster';
import { SERVICE_STATS, type StatsStore } from '../domain/stats.ts';
import type { PrimaryMessage } from './messages.ts';

/** Counted once by the primary (it loads the configurations), not once per decision process. */
const PRIMARY_STATS = new Set<string>([SERVICE_STATS.configLoadSuccess, SERVICE_STATS.configLoadError]);
const STATS_TIMEOUT_MS = 2_000;

export interface InstanceStats {
  /** Asks every process for its lines (one that does not answer in time counts as none) and sums them. */
  collect(): Promise<Iterable<[string, number]>>;
  /** A process's answer to the question `id`. */
  answered(id: number, lines: Array<[string, number]>): void;
}

export function createInstanceStats(options: {
  /** The primary's own stats (configuration loads). */
  stats: StatsStore;
  processes: () => Worker[];
  send: (to: Worker, message: PrimaryMessage) => void;
}): InstanceStats {
  let nextId = 0;
  const waiting = new Map<number, (lines: Array<[string, number]>) => void>();
  const ask = (child: Worker): Promise<Array<[string, number]>> =>
    new Promise((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve([]);
      }, STATS_TIMEOUT_MS);
      waiting.set(id, (lines) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(lines);
      });
      options.send(child, { rl: 'stats?', id });
    });

  return {
    async collect() {
      const replies = await Promise.all(options.processes().map(ask));
      const sums = new Map<string, number>();
      for (const lines of replies)
        for (const [name, value] of lines)
          if (!PRIMARY_STATS.has(name)) sums.set(name, (sums.get(name) ?? 0) + value);
      for (const counter of options.stats.counters())
        if (PRIMARY_STATS.has(counter.name)) sums.set(counter.name, counter.value);
      sums.set('ratelimit.workers', replies.length);
      return sums;
    },
    answered: (id, lines) => waiting.get(id)?.(lines),
  };
}
