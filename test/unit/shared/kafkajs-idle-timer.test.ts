import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  PENDING_RECHECK_MS,
  type RequestQueueState,
  scheduleCheckPendingRequests,
} from '../../../shared/bus/client/kafkajs-idle-timer.ts';

const queue = (pending: unknown[], throttledUntil = -1): RequestQueueState & { checks: number } => ({
  pending,
  throttledUntil,
  throttleCheckTimeoutId: null,
  checks: 0,
  checkPendingRequests() {
    this.checks++;
  },
});

describe("kafkajs's request-queue timer", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('arms no timer when nothing waits (kafkajs re-armed a 1 ms one forever)', () => {
    vi.useFakeTimers();
    const idle = queue([]);
    scheduleCheckPendingRequests.call(idle, 1_000);
    expect(idle.throttleCheckTimeoutId).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('checks waiting requests after the pause, or when the throttle ends', () => {
    vi.useFakeTimers({ now: 1_000 });
    const waiting = queue(['request']);
    scheduleCheckPendingRequests.call(waiting, 1_000);
    vi.advanceTimersByTime(PENDING_RECHECK_MS - 1);
    expect(waiting.checks).toBe(0);
    vi.advanceTimersByTime(1);
    expect([waiting.checks, waiting.throttleCheckTimeoutId]).toEqual([1, null]);

    const throttled = queue(['request'], 1_250);
    scheduleCheckPendingRequests.call(throttled, 1_000);
    scheduleCheckPendingRequests.call(throttled, 1_000); // one timer at a time
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(249);
    expect(throttled.checks).toBe(0);
    vi.advanceTimersByTime(1);
    expect(throttled.checks).toBe(1);
  });

  it("is what kafkajs's RequestQueue runs once the bus's client is loaded", async () => {
    await import('../../../shared/bus/client/kafkajs.ts');
    const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js');
    vi.useFakeTimers();
    const idle = Object.assign(Object.create(RequestQueue.prototype), queue([]));
    idle.scheduleCheckPendingRequests();
    expect(vi.getTimerCount()).toBe(0);
  });
});
