// The wait between the fetches of a consumer that keeps finding records (ConsumeOptions.lingerMs):
// records arriving meanwhile come in one batch. It is skipped when its condition says so, and ends
// at once when hurried (a reader someone waits on to reach an end).
import type { ConsumeOptions } from './types.ts';

export interface Linger {
  /** Waits `lingerMs` unless `lingerIf` says not to, or until hurried. */
  wait(): Promise<void>;
  hurry(): void;
}

export function createLinger(options: Pick<ConsumeOptions, 'lingerMs' | 'lingerIf'>): Linger {
  const wakers = new Set<() => void>();
  return {
    async wait() {
      const ms = options.lingerMs ?? 0;
      if (ms <= 0 || options.lingerIf?.() === false) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          wakers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        wakers.add(done);
      });
    },
    hurry() {
      for (const wake of [...wakers]) wake();
    },
  };
}
