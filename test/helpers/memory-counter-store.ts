// An in-memory counter store for unit tests of the decision path: fixed-window counters as Redis
// counts them, sliding windows and token buckets with the memcached store's values and arithmetic.
// Every call is recorded.
import { applyToValue } from '../../services/ratelimit/adapters/memcached/limit-values.ts';
import type {
  CounterIncrement,
  CounterStore,
  LimitOperation,
  LimitReply,
} from '../../services/ratelimit/ports.ts';

export interface MemoryCounterStore extends CounterStore {
  readonly counters: Map<string, number>;
  readonly values: Map<string, string>;
  readonly increments: CounterIncrement[][];
  readonly takes: LimitOperation[][];
}

export function createMemoryCounterStore(): MemoryCounterStore {
  const counters = new Map<string, number>();
  const values = new Map<string, string>();
  const increments: CounterIncrement[][] = [];
  const takes: LimitOperation[][] = [];
  return {
    counters,
    values,
    increments,
    takes,
    async increment(items) {
      increments.push([...items]);
      return items.map((item) => {
        const value = (counters.get(item.key) ?? 0) + item.addend;
        counters.set(item.key, value);
        return value;
      });
    },
    async take(operations) {
      takes.push([...operations]);
      return operations.map((operation): LimitReply => {
        const applied = applyToValue(operation, values.get(operation.key));
        if (applied.value !== undefined) values.set(operation.key, applied.value);
        return applied.reply;
      });
    },
    healthy: () => true,
    close: async () => {},
  };
}
