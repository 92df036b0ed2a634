import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../shared/avro/catalog.ts';
import type { Bus } from '../../../shared/bus/bus.ts';
import type { ClientProducer, KafkaClient, OutgoingRecord } from '../../../shared/bus/client/types.ts';
import { unprobedKafkaLink } from '../../../shared/bus/kafka-link.ts';
import { createEventProducer } from '../../../shared/bus/producer.ts';

// Which client producer each send goes through. A send that failed may have been written, and the
// client library keeps its idempotence sequence numbers where they were: records sent next through
// the same producer would be taken by the broker for duplicates of the failed ones and dropped
// while answered "written". So after a failed send, the next goes through a new producer.

interface FakeProducer extends ClientProducer {
  readonly id: number;
  readonly sent: string[][];
  closed: boolean;
}

function fakeBus(failFirstSendsOf: (id: number) => number) {
  const producers: FakeProducer[] = [];
  const client = {
    name: 'fake',
    partitionCounts: async (topics: readonly string[]) => new Map(topics.map((t) => [t, 1])),
    createProducer: async (): Promise<ClientProducer> => {
      const id = producers.length;
      let failuresLeft = failFirstSendsOf(id);
      const producer: FakeProducer = {
        id,
        sent: [],
        closed: false,
        async send(records: readonly OutgoingRecord[]) {
          producer.sent.push(records.map((r) => String(r.key ?? '')));
          if (failuresLeft > 0) {
            failuresLeft -= 1;
            throw new Error('The request timed out');
          }
          return [];
        },
        async close() {
          producer.closed = true;
        },
      };
      producers.push(producer);
      return producer;
    },
  } as unknown as KafkaClient;
  const bus = { client, catalog: loadCatalog(), link: unprobedKafkaLink() } as unknown as Bus;
  return { bus, producers };
}

const deleted = (trial: string) => ({
  eventType: 'ObservationLogDeleted' as const,
  key: trial,
  payload: { event_id: `e-${trial}`, trial_name: trial, occurred_at: new Date(0) },
});

describe('the event producer after a failed send', () => {
  it('sends what follows through a new producer, and closes the old one', async () => {
    const { bus, producers } = fakeBus((id) => (id === 0 ? 1 : 0));
    const producer = await createEventProducer(bus);
    await expect(producer.publish('t', [deleted('a')])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await producer.publish('t', [deleted('b')]);
    await producer.publish('t', [deleted('c')]);
    expect(producers.map((p) => p.sent)).toEqual([[['a']], [['b'], ['c']]]);
    expect(producers[0]!.closed).toBe(true);
    expect(producers[1]!.closed).toBe(false);
  });

  it('keeps its producer while sends succeed', async () => {
    const { bus, producers } = fakeBus(() => 0);
    const producer = await createEventProducer(bus);
    for (const trial of ['a', 'b', 'c']) await producer.publish('t', [deleted(trial)]);
    expect(producers).toHaveLength(1);
  });

  it('sends each call of a failed coalesced send again alone, each through a producer no send failed on', async () => {
    // Producer 0 fails the coalesced send; producer 1 fails the first call sent alone; producer 2 takes the rest.
    const { bus, producers } = fakeBus((id) => (id < 2 ? 1 : 0));
    const producer = await createEventProducer(bus);
    const settled = await Promise.allSettled(
      ['a', 'b', 'c'].map((trial) => producer.publish('t', [deleted(trial)])),
    );
    expect(producers.map((p) => p.sent)).toEqual([[['a', 'b', 'c']], [['a']], [['b'], ['c']]]);
    expect(settled.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(producers.map((p) => p.closed)).toEqual([true, true, false]);
  });
});
