import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadCatalog, SCHEMAS_DIR } from '../../shared/avro/catalog.ts';
import { type Bus, createEventProducer, type EventProducer } from '../../shared/bus/index.ts';
import { openTestBus, testTopic } from '../helpers/kafka.ts';

// Clients nobody here wrote: kcat (librdkafka) reads the topic, Apache Avro's Python library
// (Debian's python3-avro, for Debian's /usr/bin/python3) decodes the value from the .avsc alone.
const broker = inject('infra').KAFKA_BROKERS.split(',')[0]!;
const DECODER = join(import.meta.dirname, '..', 'interop', 'decode_single_object.py');
const catalog = loadCatalog();

let bus: Bus;
let producer: EventProducer;

beforeAll(async () => {
  bus = openTestBus(broker);
  producer = await createEventProducer(bus);
});

afterAll(async () => {
  await producer?.disconnect();
  await bus?.close();
});

const kcat = (...args: string[]): Buffer =>
  execFileSync('kcat', ['-b', broker, '-C', '-e', '-q', ...args], { timeout: 30_000 });

describe('a message written by the bus', () => {
  it('is read by kcat and decoded by python3-avro from the .avsc file alone', async () => {
    const topic = testTopic('interop');
    await bus.ensureTopics([topic]);
    const eventId = randomUUID();
    const payload = {
      event_id: eventId,
      occurred_at: new Date('2026-11-22T08:30:00.250Z'),
      trial_name: 'mnist-random-x7k2',
      metric_logs: [
        {
          time_stamp: '2026-11-22T08:29:59.500000Z',
          metric_name: 'accuracy',
          value: '0.91',
        },
        { time_stamp: '2026-11-22T08:30:00.000000Z', metric_name: 'loss', value: '0.2' },
      ],
    };
    await producer.publish(topic.name, [
      { eventType: 'ObservationLogReported', key: payload.trial_name, payload, correlationId: 'c-42' },
    ]);

    const [meta] = kcat('-t', topic.name, '-o', 'beginning', '-c', '1', '-J')
      .toString('utf8')
      .trim()
      .split('\n');
    expect(JSON.parse(meta!)).toMatchObject({
      topic: topic.name,
      key: 'mnist-random-x7k2',
      headers: expect.arrayContaining([
        'event-type',
        'ObservationLogReported',
        'correlation-id',
        'c-42',
        'event-id',
        eventId,
      ]),
    });

    const value = kcat('-t', topic.name, '-o', 'beginning', '-c', '1', '-f', '%s');
    const decoded = JSON.parse(
      execFileSync('/usr/bin/python3', [DECODER, join(SCHEMAS_DIR, 'observation-log-reported.v1.avsc')], {
        input: value,
      }).toString('utf8'),
    );
    const ours = catalog.current('ObservationLogReported');
    expect(decoded.canonical).toBe(ours.canonical);
    expect(decoded.computed).toBe(decoded.fingerprint);
    expect(decoded.fingerprint).toBe(ours.fingerprint.toString(16).padStart(16, '0'));
    expect(decoded.record).toMatchObject({
      event_id: eventId,
      trial_name: 'mnist-random-x7k2',
      metric_logs: payload.metric_logs,
    });
    expect(decoded.record.occurred_at).toMatch(/^2026-11-22 08:30:00\.25/);
  });

  it('every schema in schemas/ has the same canonical form in python3-avro (spec primitives rule applied)', () => {
    for (const version of catalog.versions) {
      const canonical = execFileSync('/usr/bin/python3', [
        '-c',
        'import sys; sys.path.insert(0, sys.argv[1]); import avro.schema, decode_single_object as d; ' +
          'print(d.spec_canonical(avro.schema.parse(open(sys.argv[2]).read())))',
        join(import.meta.dirname, '..', 'interop'),
        join(SCHEMAS_DIR, version.file),
      ])
        .toString('utf8')
        .trim();
      expect(canonical, version.file).toBe(version.canonical);
    }
  });
});
