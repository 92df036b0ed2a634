// GET /counters on memcached: it cannot list its keys, so only a descriptor's own keys are read
// (`key=`); values are parsed as the store writes them.
import { AppError } from '../../../../shared/errors.ts';
import type { CounterReader } from '../../ports.ts';
import type { MemcachedCounterStore } from './memcached-store.ts';

export function createMemcachedCounterReader(store: Pick<MemcachedCounterStore, 'values'>): CounterReader {
  return {
    async read(keys) {
      let values: Map<string, string>;
      try {
        values = await store.values(keys.map((k) => k.key));
      } catch (error) {
        throw new AppError('UNAVAILABLE', `memcache: ${(error as Error).message}`, { cause: error });
      }
      return keys.map(({ key }) => {
        const value = values.get(key);
        return value === undefined || value === '' ? [] : value.split(/[,:]/).map(Number);
      });
    },
    close: async () => {},
  };
}
