// A consumer group member fenced by the broker in the middle of a batch, as under a saturated event
// loop: its handler blocks the thread past the session timeout, the coordinator drops the member,
// and its commit is refused. Run under the supervisor, it comes back and nothing is lost.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type Bus,
  type ConsumedEvent,
  createEventProducer,
  type EventProducer,
  KAFKA_CLIENTS,
  type OutgoingEvent,
  startEventConsumer,
} from '../../shared/bus/index.ts';
import { silentLogger } from '../../shared/logger.ts';
import { createSupervisor } from '../../shared/supervisor.ts';
import { openTestBus, testTopic, uniqueName } from '../helpers/kafka.ts';

const brokers = inject('infra').KAFKA_BROKERS;
const SESSION_TIMEOUT_MS = 6_000;

const deleted = (trial: string): OutgoingEvent => ({
  eventType: 'ObservationLogDeleted',
  key: trial,
  payload: { event_id: randomUUID(), occurred_at: Date.now(), trial_name: trial },
});

/** Holds the thread as a CPU-bound handler would: no timer, no heartbeat, no I/O meanwhile. */
function blockThread(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {}
}

describe.each(KAFKA_CLIENTS)('on %s', (client) => {
  let bus: Bus;
  let producer: EventProducer;
  beforeAll(async () => {
    bus = openTestBus(brokers, client);
    producer = await createEventProducer(bus);
  });
  afterAll(async () => {
    await producer.disconnect();
    await bus.close();
  });

  it('a member fenced mid-batch is restarted by the supervisor and applies every event', async () => {
    const topic = testTopic('fenced');
    await bus.ensureTopics([topic]);
    const handled = new Set<string>();
    let blocked = false;
    const supervisor = createSupervisor({
      logger: silentLogger,
      initialDelayMs: 100,
      onGiveUp: (name, reason) => {
        throw new Error(`${name} gave up: ${reason}`);
      },
    });
    const groupId = uniqueName('fenced-group');
    await supervisor.supervise('consumer', () =>
      startEventConsumer({
        bus,
        producer,
        groupId,
        topics: [topic.name],
        sessionTimeoutMs: SESSION_TIMEOUT_MS,
        handle: async (events: readonly ConsumedEvent[]) => {
          if (!blocked) {
            blocked = true;
            blockThread(SESSION_TIMEOUT_MS + 2_000);
          }
          for (const event of events)
            if (event.eventType === 'ObservationLogDeleted') handled.add(event.payload.trial_name);
        },
      }),
    );
    try {
      const first = Array.from({ length: 20 }, (_, i) => `before-${i}`);
      await producer.publish(topic.name, first.map(deleted));
      await expect.poll(() => blocked, { timeout: 30_000 }).toBe(true);
      const second = Array.from({ length: 20 }, (_, i) => `after-${i}`);
      await producer.publish(topic.name, second.map(deleted));
      await expect
        .poll(() => [...first, ...second].every((t) => handled.has(t)), { timeout: 60_000 })
        .toBe(true);
      const status = supervisor.status('consumer');
      process.stdout.write(
        `[consumer-fenced] ${client}: every event applied after the fence; supervisor restarts ${status?.restarts}\n`,
      );
      expect(status?.state).toBe('running');
    } finally {
      await supervisor.stop();
    }
  });
});
