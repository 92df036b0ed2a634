// kafkajs 2.2.4 keeps a 1 ms timer going on every broker connection once a response came back with
// nothing waiting (kafkajs#1556, #1704, #1751, unreleased): it starts `throttledUntil` at -1, so the
// delay it computes is negative, and each check arms the next. That is ~1,000 wake-ups a second per
// connection, most of an idle service's CPU (and a TimeoutNegativeWarning on Node 24). A queue needs
// the timer only while requests wait; this gives its method that rule. Imported once, by ./kafkajs.ts.
import { createRequire } from 'node:module';

/** The fields of kafkajs's RequestQueue that its check works with. */
export interface RequestQueueState {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
}

/** kafkajs's own pause between checks while requests wait and no throttle is in force. */
export const PENDING_RECHECK_MS = 10;

export function scheduleCheckPendingRequests(this: RequestQueueState, now = Date.now()): void {
  if (this.throttleCheckTimeoutId !== null || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - now;
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : PENDING_RECHECK_MS,
  );
}

const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as {
  prototype: { scheduleCheckPendingRequests: () => void };
};
RequestQueue.prototype.scheduleCheckPendingRequests = function (this: RequestQueueState) {
  scheduleCheckPendingRequests.call(this);
};
