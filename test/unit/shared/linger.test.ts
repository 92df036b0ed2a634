import { describe, expect, it, vi } from 'vitest';
import { createLinger } from '../../../shared/bus/client/linger.ts';

describe('createLinger', () => {
  it('waits its time, not at all when its condition says no, and ends at once when hurried', async () => {
    vi.useFakeTimers();
    try {
      let allowed = true;
      const linger = createLinger({ lingerMs: 20, lingerIf: () => allowed });
      let over = false;
      const waiting = linger.wait().then(() => (over = true));
      await vi.advanceTimersByTimeAsync(19);
      expect(over).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await waiting;

      over = false;
      const hurried = linger.wait().then(() => (over = true));
      linger.hurry();
      await hurried;
      expect(over).toBe(true);

      allowed = false;
      await linger.wait(); // resolves without any timer advancing
      await createLinger({}).wait();
    } finally {
      vi.useRealTimers();
    }
  });
});
