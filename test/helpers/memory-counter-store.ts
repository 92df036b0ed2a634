// An in-memory counter store for unit tests of the decision path: fixed-window counters as Redis
// counts them, sliding windows and token buckets with the memcached store's values and arithmetic.
// Every call is recorded. Its reader lists keys in order, a page's cursor the index of the next.
import { applyToValue } from '../../services/ratelimit/adapters/memcached/limit-values.ts';
import type {
  CounterIncrement,
  CounterReader,
  CounterStore,
  LimitOperation,
  LimitReply,
} from '../../services/ratelimit/ports.ts';

export interface MemoryCounterStore extends CounterStore {
  readonly counters: Map<string, number>;
  readonly values: Map<string, string>;
  readonly increments: CounterIncrement[][];
  readonly takes: LimitOperation[][];
  take(operations: readonly LimitOperation[]): Promise<readonly LimitReply[]>;
  /** GET /counters over these maps; `scan` false makes it a store that cannot list keys. */
  reader(options?: { scan?: boolean }): CounterReader;
}

/** A Redis glob (only `*` and backslash escapes are used) as a regular expression. */
function globToRegExp(glob: string): RegExp {
  const literal = (char: string): string => char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '\\') source += literal(glob[++i]!);
    else if (char === '*') source += '.*';
    else source += literal(char);
  }
  return new RegExp(`^${source}$`);
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
    reader(options = {}) {
      const scan: CounterReader['scan'] = async (pattern, cursor, count) => {
        const match = globToRegExp(pattern);
        const keys = [...counters.keys(), ...values.keys()].filter((key) => match.test(key)).sort();
        const from = cursor === '' ? 0 : Number(cursor);
        const next = from + count;
        return {
          keys: keys.slice(from, next).map((key) => ({ key, perSecond: false })),
          cursor: next < keys.length ? String(next) : '',
        };
      };
      return {
        ...(options.scan === false ? {} : { scan }),
        async read(keys) {
          return keys.map(({ key, algorithm }) => {
            if (algorithm === 'fixed_window') return counters.has(key) ? [counters.get(key)!] : [];
            const value = values.get(key);
            return value === undefined ? [] : value.split(/[,:]/).map(Number);
          });
        },
        close: async () => {},
      };
    },
  };
}
