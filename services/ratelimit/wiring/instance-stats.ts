// /stats and /metrics for the whole instance: every decision unit's counters and gauges summed, plus
// each unit's own lines and the number that answered.
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { DecisionThreads } from './decision-threads.ts';

export interface InstanceStats {
  /** Asks every decision thread for its lines (one that does not answer in time counts as none) and sums them. */
  collect(): Promise<Iterable<[string, number]>>;
  /** The Prometheus text of the instance: the main thread's registry and every thread's, summed. */
  metrics(): Promise<string>;
}

export function createInstanceStats(options: {
  /** The main thread's unit's lines. */
  own: () => Iterable<[string, number]>;
  registry: Registry;
  threads: DecisionThreads;
}): InstanceStats {
  return {
    async collect() {
      const answers = await options.threads.ask('stats');
      const sums = new Map<string, number>();
      const add = (lines: Iterable<[string, number]>): void => {
        for (const [name, value] of lines) sums.set(name, (sums.get(name) ?? 0) + value);
      };
      add(options.own());
      for (const { value } of answers) add(value as Array<[string, number]>);
      sums.set('ratelimit.workers', 1 + answers.length);
      return sums;
    },
    async metrics() {
      const answers = await options.threads.ask('metrics');
      if (answers.length === 0) return options.registry.metrics();
      const all: object[] = [
        await options.registry.getMetricsAsJSON(),
        ...answers.map((a) => a.value as object),
      ];
      return AggregatorRegistry.aggregate(all).metrics();
    },
  };
}
