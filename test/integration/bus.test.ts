import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type Bus,
  type ConsumedEvent,
  createEventProducer,
  dlqOf,
  type EventConsumer,
  type EventConsumerOptions,
  type EventProducer,
  KAFKA_CLIENTS,
  type OutgoingEvent,
  type PlacedRecord,
  partitionOf,
  type ReadFrom,
  readTopic,
  startEventConsumer,
  type TopicDeclaration,
} from '../../shared/bus/index.ts';
import { invalidArgument, unavailable } from '../../shared/errors.ts';
import { openTestBus, testTopic, topicSize, uniqueName } from '../helpers/kafka.ts';
import { waitFor } from '../helpers/wait-for.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const brokers = inject('infra').KAFKA_BROKERS;

const deleted = (trial: string, eventId: string = randomUUID()): OutgoingEvent => ({
  eventType: 'ObservationLogDeleted',
  key: trial,
  payload: { event_id: eventId, occurred_at: Date.now(), trial_name: trial },
});
const trialOf = (event: ConsumedEvent): string =>
  event.eventType === 'ObservationLogDeleted' ? event.payload.trial_name : `(${event.eventType})`;

// The bus behaves the same on every Kafka client it can run on (KAFKA_CLIENT).
describe.each(KAFKA_CLIENTS)('on %s', (client) => {
  let bus: Bus;
  let producer: EventProducer;
  const workers: EventConsumer[] = [];

  beforeAll(async () => {
    bus = openTestBus(brokers, client);
    producer = await createEventProducer(bus);
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });

  afterAll(async () => {
    await producer.disconnect();
    await bus.close();
  });

  async function created(...declarations: TopicDeclaration[]): Promise<TopicDeclaration> {
    await bus.ensureTopics(declarations);
    return declarations[0]!;
  }

  /** Everything on the topic now, decoded or raw. */
  async function readAll(topic: string): Promise<{ events: ConsumedEvent[]; raw: PlacedRecord[] }> {
    const events: ConsumedEvent[] = [];
    const raw: PlacedRecord[] = [];
    const reader = await readTopic(bus, {
      topic,
      from: 'beginning',
      until: 'end',
      onEvent: (event) => void events.push(event),
      onUndecodable: (record) => void raw.push(record),
    });
    await reader.done;
    return { events, raw };
  }

  describe('producer', () => {
    it('resolves after the broker acknowledged, with headers for type, version and correlation id', async () => {
      const topic = await created(testTopic('ack'));
      await producer.publish(topic.name, [{ ...deleted('trial-a'), correlationId: 'corr-1' }]);
      expect(await topicSize(bus, topic.name)).toBe(1);
      const { events } = await readAll(topic.name);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        key: 'trial-a',
        eventType: 'ObservationLogDeleted',
        correlationId: 'corr-1',
        headers: { 'event-type': 'ObservationLogDeleted', 'schema-version': '1', 'correlation-id': 'corr-1' },
      });
      expect(trialOf(events[0]!)).toBe('trial-a');
    });

    it('puts each key on the partition the Java client would (murmur2), whatever library sends it', async () => {
      const topic = await created(testTopic('partitions', 6));
      const keys = Array.from({ length: 30 }, (_, i) => `trial-${i}`);
      await producer.publish(
        topic.name,
        keys.map((k) => deleted(k)),
      );
      const { events } = await readAll(topic.name);
      expect(events).toHaveLength(30);
      for (const event of events) expect(event.partition).toBe(partitionOf(event.key!, 6));
    });

    it('rejects a batch with one bad event whole: INVALID_ARGUMENT naming the field, nothing written', async () => {
      const topic = await created(testTopic('reject'));
      const bad = {
        eventType: 'ObservationLogDeleted',
        key: 'k',
        payload: { event_id: 'e', occurred_at: 1 },
      };
      await expect(producer.publish(topic.name, [deleted('ok'), bad as OutgoingEvent])).rejects.toMatchObject(
        {
          code: 'INVALID_ARGUMENT',
          message: expect.stringMatching(/trial_name: missing/),
        },
      );
      expect(await topicSize(bus, topic.name)).toBe(0);
    });

    it('publishes events encoded elsewhere with the same headers, and refuses a value of another schema whole', async () => {
      const topic = await created(testTopic('encoded'));
      const eventId = randomUUID();
      const payload = { event_id: eventId, occurred_at: 1_000, trial_name: 'trial-e' };
      const value = bus.catalog.encode('ObservationLogDeleted', payload);
      expect(producer.schemaHeader('ObservationLogDeleted', 1).equals(value.subarray(0, 10))).toBe(true);
      // An encoder written for another version than the current one is refused.
      expect(() => producer.schemaHeader('ObservationLogDeleted', 2)).toThrow(
        'ObservationLogDeleted: a hand-written encoder writes v2, but the current schema is v1',
      );
      await producer.publishEncoded(topic.name, [
        { eventType: 'ObservationLogDeleted', key: 'trial-e', value, eventId, correlationId: 'corr-e' },
      ]);
      const { events } = await readAll(topic.name);
      expect(events).toMatchObject([
        {
          key: 'trial-e',
          partition: partitionOf('trial-e', 1),
          eventType: 'ObservationLogDeleted',
          headers: {
            'event-type': 'ObservationLogDeleted',
            'schema-version': '1',
            'correlation-id': 'corr-e',
            'event-id': eventId,
          },
        },
      ]);
      expect(trialOf(events[0]!)).toBe('trial-e');
      await expect(
        producer.publishEncoded(topic.name, [
          { eventType: 'ObservationLogDeleted', key: 'a', value, eventId },
          { eventType: 'ObservationLogReported', key: 'b', value, eventId },
        ]),
      ).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: 'ObservationLogReported: the value is not v1 single-object encoded',
      });
      expect(await topicSize(bus, topic.name)).toBe(1);
    });

    it('rejects a topic that does not exist with UNAVAILABLE naming it', async () => {
      const absent = uniqueName('test.absent');
      await expect(producer.publish(absent, [deleted('t')])).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringContaining(absent),
      });
    });

    it('sends concurrent calls together, in order, and a call to a topic deleted meanwhile fails alone', async () => {
      const topic = await created(testTopic('coalesce'));
      // The broker refuses a record larger than this topic's max.message.bytes (MESSAGE_TOO_LARGE).
      const small = await created(testTopic('small', 1, { maxMessageBytes: 2_000 }));
      await producer.publish(small.name, [deleted('first')]); // its partition count is now known
      const calls = Array.from({ length: 40 }, (_, i) =>
        producer.publish(topic.name, [deleted(`trial-${i}-a`), deleted(`trial-${i}-b`)]),
      );
      const tooLarge = producer
        .publish(small.name, [deleted('x'.repeat(5_000))])
        .catch((error: unknown) => error);
      const more = Array.from({ length: 10 }, (_, i) => producer.publish(topic.name, [deleted(`late-${i}`)]));
      await expect(Promise.all([...calls, ...more])).resolves.toBeDefined();
      expect(await tooLarge).toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringContaining(small.name),
      });
      const keys = (await readAll(topic.name)).events.map((e) => e.key);
      expect(new Set(keys).size).toBe(90);
      // Each call's two events stay adjacent and in order (one partition).
      for (let i = 0; i < 40; i++)
        expect(keys.indexOf(`trial-${i}-b`)).toBe(keys.indexOf(`trial-${i}-a`) + 1);
    }, 90_000);
  });

  describe('readTopic', () => {
    it('reads from the beginning to the end it had at the start, in partition order', async () => {
      const topic = await created(testTopic('read', 3));
      await producer.publish(
        topic.name,
        Array.from({ length: 30 }, (_, i) => deleted(`t${i % 5}`, `id-${i}`)),
      );
      const seen: ConsumedEvent[] = [];
      const reader = await readTopic(bus, {
        topic: topic.name,
        from: 'beginning',
        until: 'end',
        onEvent: async (event) => {
          seen.push(event);
          // Written after the read began: beyond the end it reads to.
          if (seen.length === 1) await producer.publish(topic.name, [deleted('t0', 'late')]);
        },
      });
      await reader.done;
      expect(
        seen.map((e) => (e.eventType === 'ObservationLogDeleted' ? e.payload.event_id : '')),
      ).not.toContain('late');
      expect(seen).toHaveLength(30);
      for (const trial of ['t0', 't1', 't2', 't3', 't4']) {
        const ids = seen.filter((e) => e.key === trial).map((e) => Number(String(e.offset)));
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
      }
    });

    it('starts at a time, at the end, or keeps only one key', async () => {
      const topic = await created(testTopic('read-from', 2));
      await producer.publish(topic.name, [deleted('a', 'before-1'), deleted('b', 'before-2')]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const boundary = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await producer.publish(topic.name, [deleted('a', 'after-1'), deleted('b', 'after-2')]);
      const ids = async (options: { from: ReadFrom; key?: string }) => {
        const got: string[] = [];
        const reader = await readTopic(bus, {
          topic: topic.name,
          until: 'end',
          ...options,
          onEvent: (e) => void got.push(e.eventType === 'ObservationLogDeleted' ? e.payload.event_id : ''),
        });
        await reader.done;
        return got.sort();
      };
      expect(await ids({ from: { time: boundary } })).toEqual(['after-1', 'after-2']);
      expect(await ids({ from: 'end' })).toEqual([]);
      expect(await ids({ from: 'beginning', key: 'b' })).toEqual(['after-2', 'before-2']);
      // One partition from an offset. 'a' and 'b' hash to one partition: before-1, before-2,
      // after-1, after-2 at offsets 0 to 3; the other partition is empty.
      const both = partitionOf('a', 2);
      expect(partitionOf('b', 2)).toBe(both);
      expect(await ids({ from: { partition: both, offset: 2n } })).toEqual(['after-1', 'after-2']);
      expect(await ids({ from: { partition: both, offset: 1n }, key: 'a' })).toEqual(['after-1']);
      expect(await ids({ from: { partition: both, offset: 4n } })).toEqual([]);
      expect(await ids({ from: { partition: 1 - both, offset: 0n } })).toEqual([]);
      // With records on the other partition too, only the chosen one is read.
      let other = 0;
      while (partitionOf(`other-${other}`, 2) === both) other++;
      await producer.publish(topic.name, [deleted(`other-${other}`, 'other-1')]);
      expect(await ids({ from: { partition: both, offset: 2n } })).toEqual(['after-1', 'after-2']);
      expect(await ids({ from: { partition: 1 - both, offset: 0n } })).toEqual(['other-1']);
    });

    it('ends a partition whose last records are a transaction marker', async () => {
      const topic = await created(testTopic('read-tx'));
      await producer.publish(topic.name, [deleted('plain')]);
      const encoded = (trial: string) => ({
        topic: topic.name,
        partition: 0,
        key: trial,
        value: bus.catalog.encode('ObservationLogDeleted', {
          event_id: randomUUID(),
          occurred_at: Date.now(),
          trial_name: trial,
        }),
        headers: {},
      });
      await bus.client.sendInTransaction([encoded('in-tx-1'), encoded('in-tx-2')]);
      // One record, two in the transaction, its commit marker: the marker lands after the commit returns.
      await waitFor('the commit marker', async () => (await bus.watermarks(topic.name))[0]!.high === 4n);
      const { events } = await readAll(topic.name);
      expect(events.map(trialOf)).toEqual(['plain', 'in-tx-1', 'in-tx-2']);
    });

    it('reads a compacted topic with tombstones, handing those to onUndecodable', async () => {
      const topic = await created(testTopic('read-compact', 1, { cleanupPolicy: 'compact' }));
      await producer.publish(topic.name, [deleted('k1'), deleted('k2'), deleted('k1')]);
      await producer.publishRaw(topic.name, [{ key: 'k2', value: null }]);
      const { events, raw } = await readAll(topic.name);
      expect(events.map(trialOf)).toEqual(['k1', 'k2', 'k1']);
      expect(raw.map((r) => [r.key?.toString(), r.value])).toEqual([['k2', null]]);
    });

    it('follows new records, says when it caught up, and picks up partitions added later', async () => {
      const topic = await created(testTopic('follow', 1));
      const seen: string[] = [];
      const reader = await readTopic(bus, {
        topic: topic.name,
        from: 'beginning',
        until: 'follow',
        maxWaitMs: 100,
        metadataMaxAgeMs: 1_000,
        onEvent: (e) => void seen.push(trialOf(e)),
      });
      try {
        await producer.publish(topic.name, [deleted('x1'), deleted('x2')]);
        await reader.caughtUp(20_000);
        expect(seen).toEqual(['x1', 'x2']);
        await bus.client.addPartitions(topic.name, 3);
        // A key the murmur2 partitioner puts on a new partition, sent by a producer that sees all three.
        let key = 0;
        while (partitionOf(`new-${key}`, 3) === 0) key++;
        const fresh = await createEventProducer(bus);
        await fresh.publish(topic.name, [deleted(`new-${key}`)]);
        await fresh.disconnect();
        expect(
          (await bus.watermarks(topic.name)).find((w) => w.partition === partitionOf(`new-${key}`, 3))?.high,
        ).toBe(1n);
        await waitFor('the record on the new partition', () => seen.includes(`new-${key}`), {
          timeoutMs: 60_000,
        });
        await reader.caughtUp(20_000);
      } finally {
        await reader.stop();
      }
      await expect(reader.done).resolves.toBeUndefined();
    }, 120_000);

    it('answers NOT_FOUND for a topic that does not exist', async () => {
      await expect(
        readTopic(bus, {
          topic: uniqueName('test.none'),
          from: 'beginning',
          until: 'end',
          onEvent: () => {},
        }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('does not exist') });
    });

    it('rejects options that cannot work together', async () => {
      const topic = await created(testTopic('read-options'));
      await expect(
        readTopic(bus, { topic: topic.name, from: 'committed', until: 'follow', onEvent: () => {} }),
      ).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: 'readTopic: from "committed" needs a group',
      });
      await expect(
        readTopic(bus, { topic: topic.name, group: 'g', from: 'beginning', until: 'end', onEvent: () => {} }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      const onePartition = { partition: 0, offset: 0n };
      await expect(
        readTopic(bus, { topic: topic.name, from: onePartition, until: 'follow', onEvent: () => {} }),
      ).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: 'readTopic: from a partition and offset reads until "end" only',
      });
      await expect(
        readTopic(bus, {
          topic: topic.name,
          from: { partition: 3, offset: 0n },
          until: 'end',
          onEvent: () => {},
        }),
      ).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: `readTopic: ${topic.name} has no partition 3`,
      });
    });
  });

  describe('worker', () => {
    async function start(
      topic: TopicDeclaration,
      handle: (events: readonly ConsumedEvent[]) => Promise<void>,
      registry?: Registry,
      more: Partial<EventConsumerOptions> = {},
    ) {
      const worker = await startEventConsumer({
        bus,
        producer,
        groupId: uniqueName('group'),
        topics: [topic.name],
        handle,
        retry: { attempts: 5, initialDelayMs: 20 },
        ...(registry ? { registry } : {}),
        ...more,
      });
      workers.push(worker);
      await worker.joined;
      return worker;
    }

    it('dead-letters an undecodable message and a poison event with their reasons, and goes on', async () => {
      const topic = testTopic('poison');
      await created(topic, dlqOf(topic));
      const applied: string[] = [];
      await start(topic, async (events) => {
        // All or nothing, like a store transaction: validate every event first.
        for (const e of events)
          if (trialOf(e) === 'poison') throw invalidArgument('trial poison cannot be applied');
        applied.push(...events.map(trialOf));
      });
      await producer.publish(topic.name, [deleted('good-1')]);
      await producer.publishRaw(topic.name, [{ key: 'garbage', value: Buffer.from('not avro at all') }]);
      await producer.publish(topic.name, [deleted('poison'), deleted('good-2')]);

      await waitFor(
        'both good events applied',
        () => applied.includes('good-1') && applied.includes('good-2'),
      );
      expect(applied).toEqual(['good-1', 'good-2']);
      await waitFor('two dead letters', async () => (await topicSize(bus, `${topic.name}.dlq`)) === 2);
      const { events, raw } = await readAll(`${topic.name}.dlq`);
      expect(raw.map((r) => [r.key?.toString(), r.headers])).toEqual([
        [
          'garbage',
          expect.objectContaining({
            'dlq-reason': 'undecodable: not an Avro single-object encoded value (no C3 01 marker)',
            'dlq-topic': topic.name,
            'dlq-offset': '1',
          }),
        ],
      ]);
      expect(events.map((e) => [trialOf(e), e.headers])).toEqual([
        [
          'poison',
          expect.objectContaining({
            'dlq-reason': 'trial poison cannot be applied',
            'event-type': 'ObservationLogDeleted',
          }),
        ],
      ]);
    });

    it('handles the partitions of one fetch together, each in order, and commits every partition', async () => {
      const topic = testTopic('together', 3);
      await created(topic, dlqOf(topic));
      const keys = ['t-0', 't-1', 't-2', 't-3', 't-4', 't-5'];
      // Published before the worker starts: its first fetch finds every partition with records.
      for (let round = 0; round < 20; round++)
        await producer.publish(
          topic.name,
          keys.map((k) => deleted(k, `${k}/${round}`)),
        );
      const ends = new Map((await bus.watermarks(topic.name)).map((w) => [w.partition, w.high]));
      const calls: ConsumedEvent[][] = [];
      const committed = new Map<number, bigint>();
      await start(topic, async (events) => void calls.push([...events]), undefined, {
        handleTogether: true,
        minBytes: 1024 * 1024,
        maxWaitMs: 200,
        onCommitted: (t, partition, next) => {
          expect(t).toBe(topic.name);
          committed.set(partition, next);
        },
      });
      await waitFor('every partition committed to its end', () =>
        [...ends].every(([partition, end]) => committed.get(partition) === end),
      );
      const all = calls.flat();
      expect(all).toHaveLength(120);
      expect(calls.some((events) => new Set(events.map((e) => e.partition)).size > 1)).toBe(true);
      for (const key of keys)
        expect(all.filter((e) => e.key === key).map((e) => e.payload.event_id)).toEqual(
          Array.from({ length: 20 }, (_, round) => `${key}/${round}`),
        );
    });

    it('lingers after a batch that reached the end: events published one by one arrive in fewer calls', async () => {
      const topic = testTopic('linger');
      await created(topic, dlqOf(topic));
      const calls: number[] = [];
      // A linger far longer than the publishes take even on a loaded machine (40 × ~5-50 ms).
      await start(topic, async (events) => void calls.push(events.length), undefined, { lingerMs: 1_000 });
      for (let i = 0; i < 40; i++) {
        await producer.publish(topic.name, [deleted(`t-${i}`)]);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await waitFor('every event handled', () => calls.reduce((a, b) => a + b, 0) === 40);
      // Without the linger each acknowledged publish is a fetch of its own: ~40 calls.
      expect(calls.length).toBeLessThan(20);
    });

    it('lingers once per fetch, not once per partition of it', async () => {
      const topic = testTopic('linger-fetch', 6);
      await created(topic, dlqOf(topic));
      // Published before the worker starts: its first fetch finds records on every partition.
      await producer.publish(
        topic.name,
        Array.from({ length: 30 }, (_, i) => deleted(`t-${i}`)),
      );
      let batches = 0;
      let lingers = 0;
      const partitions = new Set<number>();
      await start(
        topic,
        async (events) => {
          batches += 1;
          for (const e of events) partitions.add(e.partition);
        },
        undefined,
        {
          lingerMs: 500,
          lingerIf: () => {
            lingers += 1;
            return true;
          },
        },
      );
      await waitFor('every partition handled', () => partitions.size === 6, { timeoutMs: 60_000 });
      // A linger per batch would linger as often as batches came (six, one a partition); once per
      // fetch, the batches of a fetch go on together and one linger follows them.
      expect(batches).toBeGreaterThanOrEqual(6);
      expect(lingers).toBeLessThan(batches);
    });

    it('retries a retriable failure with backoff and applies the event once', async () => {
      const topic = testTopic('retry');
      await created(topic, dlqOf(topic));
      const registry = new Registry();
      let failures = 0;
      const applied: string[] = [];
      await start(
        topic,
        async (events) => {
          if (failures < 2) {
            failures++;
            throw unavailable('store is restarting');
          }
          applied.push(...events.map(trialOf));
        },
        registry,
      );
      await producer.publish(topic.name, [deleted('flaky')]);
      await waitFor('the event applied', () => applied.length === 1);
      const retries = await registry.getSingleMetric('bus_handler_retries_total')!.get();
      expect(retries.values[0]?.value).toBe(2);
      expect(await topicSize(bus, `${topic.name}.dlq`)).toBe(0);
    });

    it('loses nothing when the worker process is killed in the middle of a batch', async () => {
      const topic = testTopic('kill', 2);
      await created(topic, dlqOf(topic));
      const ids = Array.from({ length: 400 }, () => randomUUID());
      for (let i = 0; i < ids.length; i += 100) {
        await producer.publish(
          topic.name,
          ids.slice(i, i + 100).map((id, j) => deleted(`trial-${(i + j) % 7}`, id)),
        );
      }
      const group = uniqueName('killed');
      const outFile = join(mkdtempSync(join(tmpdir(), 'bus-kill-')), 'applied.txt');
      const lines = () =>
        existsSync(outFile) ? readFileSync(outFile, 'utf8').split('\n').filter(Boolean) : [];
      const env = {
        ...process.env,
        KAFKA_BROKERS: brokers,
        KAFKA_CLIENT: client,
        TOPIC: topic.name,
        GROUP: group,
        OUT_FILE: outFile,
      };
      const spawnWorker = (delayMs: number): ChildProcess =>
        spawn(process.execPath, [join(ROOT, 'test/helpers/bus-consumer-process.ts')], {
          env: { ...env, DELAY_MS: String(delayMs) },
          stdio: ['ignore', 'pipe', 'inherit'],
        });

      const first = spawnWorker(10);
      await waitFor('the first worker to apply 80 events', () => lines().length >= 80, { timeoutMs: 60_000 });
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));

      const appliedBeforeKill = lines().length;
      const committed = [...(await bus.committedOffsets(group, topic.name)).values()].reduce(
        (sum, offset) => sum + Number(offset),
        0,
      );
      // Killed mid-batch: some events took effect but their offsets were never committed.
      expect(committed).toBeLessThan(appliedBeforeKill);

      const second = spawnWorker(0);
      await waitFor('every acknowledged event applied', () => lines().length >= ids.length, {
        timeoutMs: 90_000,
      });
      second.kill('SIGTERM');
      const code = await new Promise((resolve) => second.once('exit', resolve));
      expect(code).toBe(0);
      expect(new Set(lines())).toEqual(new Set(ids));
      expect(lines()).toHaveLength(ids.length);
    }, 180_000);
  });
});
