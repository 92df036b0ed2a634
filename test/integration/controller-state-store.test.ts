import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type KafkaControllerStateStore,
  openKafkaControllerStateStore,
} from '../../services/experiment/suggestion/adapters/kafka-controller-state-store.ts';
import { createMemoryControllerStateStore } from '../../services/experiment/suggestion/adapters/memory-controller-state-store.ts';
import type { ControllerStateStore } from '../../services/experiment/suggestion/ports.ts';
import {
  type Bus,
  createEventProducer,
  type EventProducer,
  partitionOf,
  TOPICS,
} from '../../shared/bus/index.ts';
import { systemClock } from '../../shared/clock.ts';
import { openTestBus, uniqueName } from '../helpers/kafka.ts';
import { type LogLine, memoryLogger } from '../helpers/memory-logger.ts';
import { waitFor } from '../helpers/wait-for.ts';

// The ControllerStateStore contract, kept by the in-memory store and by the Kafka store on the real
// compacted topic, where a second instance must see every save the first one had acknowledged.

const infra = inject('infra');
// A topic of this run, declared as the real one (compacted, 16 MiB messages), deleted at the end.
const TOPIC = { ...TOPICS.nasControllerState, name: uniqueName('test.nas-controller-state') };
let bus: Bus;
let producer: EventProducer;
const opened: KafkaControllerStateStore[] = [];
const log = memoryLogger<LogLine>('warn');

const openKafka = async (cacheBytes?: number): Promise<KafkaControllerStateStore> => {
  const store = await openKafkaControllerStateStore({
    bus,
    producer,
    clock: systemClock,
    logger: log.logger,
    catchUpTimeoutMs: 10_000,
    topic: TOPIC.name,
    ...(cacheBytes === undefined ? {} : { cacheBytes }),
  });
  opened.push(store);
  return store;
};

const saved = (bytes: number[], trialCount = 3) => ({
  algorithmName: 'enas',
  trialCount,
  state: Uint8Array.from(bytes),
});

beforeAll(async () => {
  bus = openTestBus(infra.KAFKA_BROKERS);
  await bus.ensureTopics([TOPIC]);
  producer = await createEventProducer(bus);
});

afterAll(async () => {
  for (const store of opened) await store.close();
  await producer?.disconnect();
  await bus?.client.deleteTopics([TOPIC.name]).catch(() => undefined);
  await bus?.close();
});

function contract(name: string, open: () => Promise<[ControllerStateStore, ControllerStateStore]>) {
  describe(`${name}: the ControllerStateStore contract`, () => {
    it('latest is undefined for an experiment never saved, then the last acknowledged save, seen by every instance', async () => {
      const [a, b] = await open();
      const experiment = uniqueName('exp');
      expect(await a.latest(experiment)).toBeUndefined();
      await a.save(experiment, saved([1, 2, 3]));
      expect(await b.latest(experiment)).toEqual(Uint8Array.from([1, 2, 3]));
      await b.save(experiment, saved([4, 5], 6));
      expect(await a.latest(experiment)).toEqual(Uint8Array.from([4, 5]));
      expect(await b.latest(experiment)).toEqual(Uint8Array.from([4, 5]));
      expect(await a.latest(uniqueName('other'))).toBeUndefined();
    });
  });
}

contract('memory', async () => {
  const store = createMemoryControllerStateStore();
  return [store, store];
});
contract('kafka (two instances)', async () => [await openKafka(), await openKafka()]);

describe('kafka store: the largest state enas keeps', () => {
  it('saves and reads back a 12 MiB state (the topic takes 16 MiB messages)', async () => {
    const [a, b] = [await openKafka(), await openKafka()];
    const experiment = uniqueName('large');
    const state = new Uint8Array(12 * 1024 * 1024);
    for (let i = 0; i < state.length; i += 4096) state[i] = (i / 4096) % 251;
    await a.save(experiment, { algorithmName: 'enas', trialCount: 1, state });
    const read = await b.latest(experiment);
    expect(read?.length).toBe(state.length);
    expect(Buffer.from(read!).equals(Buffer.from(state))).toBe(true);
  });
});

describe('kafka store: memory bounded by cacheBytes', () => {
  it('keeps the most recently used states and reads the others back from the topic', async () => {
    // Room for two 8-byte states.
    const store = await openKafka(16);
    const [first, second, third] = [uniqueName('lru-a'), uniqueName('lru-b'), uniqueName('lru-c')];
    await store.save(first, saved([1, 1, 1, 1, 1, 1, 1, 1]));
    await store.save(second, saved([2, 2, 2, 2, 2, 2, 2, 2]));
    expect(await store.latest(first)).toEqual(Uint8Array.from([1, 1, 1, 1, 1, 1, 1, 1]));
    // The third pushes out the least recently used: the second.
    await store.save(third, saved([3, 3, 3, 3, 3, 3, 3, 3]));
    expect(await store.latest(third)).toEqual(Uint8Array.from([3, 3, 3, 3, 3, 3, 3, 3]));
    // Read back from the topic, the latest save of each (not an older one).
    await store.save(second, saved([4, 4, 4, 4, 4, 4, 4, 4]));
    await store.save(first, saved([5, 5, 5, 5, 5, 5, 5, 5]));
    expect(await store.latest(third)).toEqual(Uint8Array.from([3, 3, 3, 3, 3, 3, 3, 3]));
    expect(await store.latest(second)).toEqual(Uint8Array.from([4, 4, 4, 4, 4, 4, 4, 4]));
    expect(await store.latest(first)).toEqual(Uint8Array.from([5, 5, 5, 5, 5, 5, 5, 5]));
    expect(await store.latest(uniqueName('never'))).toBeUndefined();
  });
});

describe('kafka store: a new instance', () => {
  it('keeps no state it replayed at start, reads back the ones asked for, and keeps the saves it sees', async () => {
    const writer = await openKafka();
    const [first, second] = [uniqueName('replayed-a'), uniqueName('replayed-b')];
    await writer.save(first, saved([1, 2, 3, 4]));
    await writer.save(second, saved([5, 6, 7, 8]));
    await writer.save(first, saved([9, 9, 9, 9, 9, 9]));
    const late = await openKafka();
    expect(await late.latest(uniqueName('never'))).toBeUndefined();
    expect(late.heldBytes()).toBe(0);
    expect(await late.latest(first)).toEqual(Uint8Array.from([9, 9, 9, 9, 9, 9]));
    expect(late.heldBytes()).toBe(6);
    expect(await late.latest(second)).toEqual(Uint8Array.from([5, 6, 7, 8]));
    expect(late.heldBytes()).toBe(10);
    // A save made while it runs is kept as it arrives.
    const third = uniqueName('live');
    await writer.save(third, saved([7, 7]));
    expect(await late.latest(third)).toEqual(Uint8Array.from([7, 7]));
    expect(late.heldBytes()).toBe(12);
  });
});

describe('kafka store: a topic that gained partitions', () => {
  it('answers the newest save of a key whose saves are on two partitions', async () => {
    const topic = { ...TOPIC, name: uniqueName('test.nas-state-grown'), partitions: 1 };
    await bus.ensureTopics([topic]);
    let experiment = uniqueName('moved');
    while (partitionOf(experiment, 3) === 0) experiment = uniqueName('moved');
    const open = async (eventProducer: EventProducer) => {
      const store = await openKafkaControllerStateStore({
        bus,
        producer: eventProducer,
        clock: systemClock,
        logger: log.logger,
        catchUpTimeoutMs: 10_000,
        topic: topic.name,
      });
      opened.push(store);
      return store;
    };
    try {
      await (await open(producer)).save(experiment, saved([1, 1]));
      await bus.client.addPartitions(topic.name, 3);
      // New partitions answer once they have a leader.
      await waitFor(
        'the three partitions to have leaders',
        async () => (await bus.watermarks(topic.name)).length === 3,
      );
      // A producer that sees the three partitions puts the next save on the key's new one.
      const fresh = await createEventProducer(bus);
      try {
        await (await open(fresh)).save(experiment, saved([2, 2]));
      } finally {
        await fresh.disconnect();
      }
      const watermarks = await bus.watermarks(topic.name);
      expect(watermarks.find((w) => w.partition === partitionOf(experiment, 3))?.high).toBe(1n);
      // Replaying the topic, the new store meets both saves, in either order.
      expect(await (await open(producer)).latest(experiment)).toEqual(Uint8Array.from([2, 2]));
    } finally {
      await bus.client.deleteTopics([topic.name]).catch(() => undefined);
    }
  });
});

describe('kafka store: a state read back while the experiment saves again', () => {
  it('answers the newest state, never "none", when the save it reads back is outdated meanwhile', async () => {
    // The store's bus, with a gate on the consumer the next read back starts: the test saves again
    // while the read back waits there, its end already fixed before those saves (the race, made
    // certain). Consumers started while armed are counted: one per read back.
    let armed = false;
    let held: (() => void) | undefined;
    let consumers = 0;
    const client = new Proxy(bus.client, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (prop !== 'consume') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: Parameters<typeof target.consume>) => {
          if (armed && ++consumers === 1) await new Promise<void>((resolve) => (held = resolve));
          return target.consume(...args);
        };
      },
    });
    const gated = new Proxy(bus, {
      get: (target, prop, receiver) => (prop === 'client' ? client : Reflect.get(target, prop, receiver)),
    });
    // Room for one 8-byte state: a save of one experiment pushes the other's out.
    const store = await openKafkaControllerStateStore({
      bus: gated,
      producer,
      clock: systemClock,
      logger: log.logger,
      catchUpTimeoutMs: 10_000,
      topic: TOPIC.name,
      cacheBytes: 8,
    });
    opened.push(store);
    // On one partition, so the store follows their saves in the order made (across partitions it
    // may not, and y would not push x out).
    const x = uniqueName('race-x');
    let y = uniqueName('race-y');
    while (partitionOf(y, TOPIC.partitions) !== partitionOf(x, TOPIC.partitions)) y = uniqueName('race-y');
    const eight = (value: number) => Uint8Array.from(new Array<number>(8).fill(value));
    await store.save(x, saved([...eight(1)]));
    await store.save(y, saved([...eight(2)]));
    armed = true;
    const reading = store.latest(x);
    const answeredEarly = reading.then(
      (state) => new Error(`latest answered without reading back: ${state === undefined ? 'none' : state}`),
      (error: unknown) => error,
    );
    const early = await Promise.race([
      waitFor('the read back to wait at its start', () => held !== undefined).then(() => undefined),
      answeredEarly,
    ]);
    expect(early).toBeUndefined();
    // x saved again, then pushed out of memory again by y; the store has followed both saves.
    await store.save(x, saved([...eight(3)]));
    await store.save(y, saved([...eight(4)]));
    expect(await store.latest(y)).toEqual(eight(4));
    // A second call meanwhile waits for the same read back.
    const joining = store.latest(x);
    held!();
    expect(await reading).toEqual(eight(3));
    expect(await joining).toEqual(eight(3));
    // The first read back reached only the older save, so a second one read from the newer.
    expect(consumers).toBe(2);
  });
});

describe('kafka store: what it cannot read', () => {
  it('a record that is not Avro is no state (logged); a tombstone deletes the state', async () => {
    const reader = await openKafka();
    const broken = uniqueName('broken');
    const deleted = uniqueName('deleted');
    await reader.save(broken, saved([9]));
    await reader.save(deleted, saved([8]));
    expect(await reader.latest(broken)).toEqual(Uint8Array.from([9]));
    const raw = await bus.client.createProducer();
    try {
      await raw.send([
        {
          topic: TOPIC.name,
          partition: partitionOf(broken, TOPIC.partitions),
          key: broken,
          value: Buffer.from('not avro'),
          headers: {},
        },
        {
          topic: TOPIC.name,
          partition: partitionOf(deleted, TOPIC.partitions),
          key: deleted,
          value: null,
          headers: {},
        },
      ]);
    } finally {
      await raw.close();
    }
    expect(await reader.latest(broken)).toBeUndefined();
    expect(await reader.latest(deleted)).toBeUndefined();
    // A new instance reads the same from the beginning.
    const late = await openKafka();
    expect(await late.latest(broken)).toBeUndefined();
    expect(await late.latest(deleted)).toBeUndefined();
    // Every open instance follows the topic and says so (at least the two above).
    const warnings = log.lines.filter(
      (l) => l.msg === 'controller state does not decode; treated as none' && l.experiment === broken,
    );
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    expect(log.lines.filter((l) => l.experiment === deleted)).toEqual([]);
  });
});
