// The restart measurement's backlog: acknowledged logs published straight to
// experiment.observations while the server is down (as other instances that acknowledged them
// would have), and the wait until the persistence consumer has applied what was acknowledged.
import { randomUUID } from 'node:crypto';
import { type Bus, createEventProducer, TOPICS } from '../../shared/bus/index.ts';
import { metricLogs } from './report-load.ts';

/** Publishes `total` logs, 1,000 per event over 100 trials; returns the last trial and its logs. */
export async function publishBacklog(
  bus: Bus,
  total: number,
  trialPrefix: string,
): Promise<{ lastTrial: string; lastLogs: number }> {
  const producer = await createEventProducer(bus);
  const perEvent = 1_000;
  let lastTrial = '';
  let lastLogs = 0;
  try {
    const pending: Promise<void>[] = [];
    for (let sent = 0, i = 0; sent < total; sent += perEvent, i++) {
      const count = Math.min(perEvent, total - sent);
      lastTrial = `${trialPrefix}-${i % 100}`;
      lastLogs = count;
      const logs = metricLogs(count, i * perEvent).map((l) => ({
        time_stamp: l.time_stamp,
        metric_name: l.metric.name,
        value: l.metric.value,
      }));
      const event = {
        eventType: 'ObservationLogReported' as const,
        key: lastTrial,
        payload: {
          event_id: randomUUID(),
          occurred_at: Date.now(),
          trial_name: lastTrial,
          metric_logs: logs,
        },
      };
      pending.push(publishRetrying(() => producer.publish(TOPICS.observations.name, [event])));
      if (pending.length >= 32) await Promise.all(pending.splice(0));
    }
    await Promise.all(pending);
  } finally {
    await producer.disconnect();
  }
  return { lastTrial, lastLogs };
}

/**
 * A busy shared machine can keep Kafka from answering the bus's probe in time: the call is made
 * again (a copy written twice has the same event id, which the store applies once).
 */
async function publishRetrying(publish: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await publish();
    } catch (error) {
      if (attempt >= 60 || (error as { code?: string }).code !== 'UNAVAILABLE') throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Resolves once `group` has committed every partition of experiment.observations up to `ends`. */
export async function persistedUpTo(
  bus: Bus,
  group: string,
  ends: ReadonlyMap<number, bigint>,
  timeoutMs: number,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const committed = await bus.committedOffsets(group, TOPICS.observations.name);
    if ([...ends].every(([partition, end]) => (committed.get(partition) ?? 0n) >= end)) return;
    if (performance.now() > deadline)
      throw new Error(`the persistence consumer did not catch up in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The high watermark of each partition of experiment.observations now. */
export async function observationEnds(bus: Bus): Promise<Map<number, bigint>> {
  return new Map((await bus.watermarks(TOPICS.observations.name)).map((w) => [w.partition, w.high]));
}
