import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Admin, type Kafka, logLevel, Kafka as RawKafka } from 'kafkajs';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadCatalog } from '../../shared/avro/catalog.ts';
import { type ConsumedEvent, startWorker, type Worker } from '../../shared/bus/consumer.ts';
import { createKafka } from '../../shared/bus/kafka.ts';
import { createEventProducer, type EventProducer, type OutgoingEvent } from '../../shared/bus/producer.ts';
import { dlqOf, type TopicDeclaration } from '../../shared/bus/topics.ts';
import { invalidArgument, unavailable } from '../../shared/errors.ts';
import { silentLogger } from '../../shared/logger.ts';
import { createTopics, testTopic, topicSize, uniqueName } from '../helpers/kafka.ts';
import { waitFor } from '../helpers/wait-for.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const brokers = inject('infra').KAFKA_BROKERS.split(',');
const catalog = loadCatalog();

const deleted = (trial: string, eventId: string = randomUUID()): OutgoingEvent => ({
  eventType: 'ObservationLogDeleted',
  key: trial,
  payload: { event_id: eventId, occurred_at: Date.now(), trial_name: trial },
});

let kafka: Kafka;
let admin: Admin;
let producer: EventProducer;
const workers: Worker[] = [];

beforeAll(async () => {
  kafka = createKafka({ brokers, clientId: 'bus-test', logger: silentLogger });
  admin = kafka.admin();
  await admin.connect();
  producer = await createEventProducer({ kafka, catalog });
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

afterAll(async () => {
  await producer.disconnect();
  await admin.disconnect();
});

async function readAll(
  topic: string,
  count: number,
): Promise<Array<{ key: string; headers: Record<string, string>; value: Buffer }>> {
  const consumer = kafka.consumer({ groupId: uniqueName('reader'), maxWaitTimeInMs: 100 });
  const seen: Array<{ key: string; headers: Record<string, string>; value: Buffer }> = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const headers = Object.fromEntries(
        Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]),
      );
      seen.push({ key: String(message.key), headers, value: message.value ?? Buffer.alloc(0) });
    },
  });
  try {
    await waitFor(`${count} messages on ${topic}`, () => seen.length >= count);
    return seen;
  } finally {
    await consumer.disconnect();
  }
}

describe('producer', () => {
  it('resolves after the broker acknowledged, with headers for type, version and correlation id', async () => {
    const topic = testTopic('ack');
    await createTopics(kafka, topic);
    await producer.publish(topic.name, [{ ...deleted('trial-a'), correlationId: 'corr-1' }]);
    expect(await topicSize(admin, topic.name)).toBe(1);
    const [message] = await readAll(topic.name, 1);
    expect(message!.key).toBe('trial-a');
    expect(message!.headers).toMatchObject({
      'event-type': 'ObservationLogDeleted',
      'schema-version': '1',
      'correlation-id': 'corr-1',
    });
    expect(catalog.decode(message!.value).payload.trial_name).toBe('trial-a');
  });

  it('rejects a batch with one bad event whole: INVALID_ARGUMENT naming the field, nothing written', async () => {
    const topic = testTopic('reject');
    await createTopics(kafka, topic);
    const bad = { eventType: 'ObservationLogDeleted', key: 'k', payload: { event_id: 'e', occurred_at: 1 } };
    await expect(producer.publish(topic.name, [deleted('ok'), bad])).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/trial_name: missing/),
    });
    expect(await topicSize(admin, topic.name)).toBe(0);
  });

  it('rejects a topic that does not exist with UNAVAILABLE naming it', async () => {
    await expect(producer.publish(uniqueName('test.absent'), [deleted('t')])).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/publishing to test\.absent-/),
    });
  }, 60_000);
  it('sends concurrent calls together, in order, and one bad call fails alone', async () => {
    const topic = testTopic('coalesce');
    await createTopics(kafka, topic);
    const absent = uniqueName('test.absent');
    const calls = Array.from({ length: 40 }, (_, i) =>
      producer.publish(topic.name, [deleted(`trial-${i}-a`), deleted(`trial-${i}-b`)]),
    );
    const missing = producer.publish(absent, [deleted('lost')]).catch((error: unknown) => error);
    const more = Array.from({ length: 10 }, (_, i) => producer.publish(topic.name, [deleted(`late-${i}`)]));
    await expect(Promise.all([...calls, ...more])).resolves.toBeDefined();
    expect(await missing).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining(absent),
    });
    const keys = (await readAll(topic.name, 90)).map((m) => m.key);
    expect(new Set(keys).size).toBe(90);
    // Each call's two events stay adjacent and in order (one partition).
    for (let i = 0; i < 40; i++) expect(keys.indexOf(`trial-${i}-b`)).toBe(keys.indexOf(`trial-${i}-a`) + 1);
  }, 90_000);
});

describe('worker', () => {
  async function start(
    topic: TopicDeclaration,
    handle: (events: readonly ConsumedEvent[]) => Promise<void>,
    registry?: Registry,
  ) {
    const worker = await startWorker({
      kafka,
      catalog,
      producer,
      logger: silentLogger,
      groupId: uniqueName('group'),
      topics: [topic.name],
      handle,
      retry: { attempts: 5, initialDelayMs: 20 },
      ...(registry ? { registry } : {}),
    });
    workers.push(worker);
    await worker.joined;
    return worker;
  }

  it('dead-letters an undecodable message and a poison event with their reasons, and goes on', async () => {
    const topic = testTopic('poison');
    await createTopics(kafka, topic, dlqOf(topic));
    const applied: string[] = [];
    await start(topic, async (events) => {
      // All or nothing, like a store transaction: validate every event first.
      for (const e of events)
        if (e.payload.trial_name === 'poison') throw invalidArgument('trial poison cannot be applied');
      applied.push(...events.map((e) => String(e.payload.trial_name)));
    });
    const raw = new RawKafka({ brokers, logLevel: logLevel.NOTHING }).producer();
    await raw.connect();
    await producer.publish(topic.name, [deleted('good-1')]);
    await raw.send({ topic: topic.name, messages: [{ key: 'garbage', value: 'not avro at all' }] });
    await producer.publish(topic.name, [deleted('poison'), deleted('good-2')]);
    await raw.disconnect();

    await waitFor('both good events applied', () => applied.includes('good-1') && applied.includes('good-2'));
    expect(applied).toEqual(['good-1', 'good-2']);
    const dead = await readAll(`${topic.name}.dlq`, 2);
    const reasons = Object.fromEntries(dead.map((d) => [d.key, d.headers]));
    expect(reasons.garbage).toMatchObject({
      'dlq-reason': 'undecodable: not an Avro single-object encoded value (no C3 01 marker)',
      'dlq-topic': topic.name,
      'dlq-offset': '1',
    });
    expect(reasons.poison).toMatchObject({
      'dlq-reason': 'trial poison cannot be applied',
      'event-type': 'ObservationLogDeleted',
    });
    expect(catalog.decode(dead.find((d) => d.key === 'poison')!.value).payload.trial_name).toBe('poison');
  });

  it('retries a retriable failure with backoff and applies the event once', async () => {
    const topic = testTopic('retry');
    await createTopics(kafka, topic, dlqOf(topic));
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
        applied.push(...events.map((e) => String(e.payload.trial_name)));
      },
      registry,
    );
    await producer.publish(topic.name, [deleted('flaky')]);
    await waitFor('the event applied', () => applied.length === 1);
    const retries = await registry.getSingleMetric('bus_handler_retries_total')!.get();
    expect(retries.values[0]?.value).toBe(2);
    expect(await topicSize(admin, `${topic.name}.dlq`)).toBe(0);
  });

  it('loses nothing when the worker process is killed in the middle of a batch', async () => {
    const topic = testTopic('kill', 2);
    await createTopics(kafka, topic, dlqOf(topic));
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
      KAFKA_BROKERS: brokers.join(','),
      TOPIC: topic.name,
      GROUP: group,
      OUT_FILE: outFile,
    };
    const spawnWorker = (delayMs: number): ChildProcess =>
      spawn(process.execPath, [join(ROOT, 'test/helpers/bus-worker-process.ts')], {
        env: { ...env, DELAY_MS: String(delayMs) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });

    const first = spawnWorker(10);
    await waitFor('the first worker to apply 80 events', () => lines().length >= 80, { timeoutMs: 60_000 });
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));

    const appliedBeforeKill = lines().length;
    const committed = (
      await admin.fetchOffsets({ groupId: group, topics: [topic.name] })
    )[0]!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
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
