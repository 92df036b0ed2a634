// Bus benchmark: acknowledged producer throughput, and end-to-end latency through one worker.
// Bounded: BENCH_EVENTS events per throughput run, BENCH_RATE events/s for BENCH_SECONDS seconds
// in the latency run. Uses its own topics and deletes them at the end.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadCatalog } from '../shared/avro/catalog.ts';
import { startWorker } from '../shared/bus/consumer.ts';
import { createKafka, kafkaSettings } from '../shared/bus/kafka.ts';
import { createEventProducer, type OutgoingEvent } from '../shared/bus/producer.ts';
import { ensureTopics, type TopicDeclaration } from '../shared/bus/topics.ts';
import { createLogger } from '../shared/logger.ts';
import { int, readSettings } from '../shared/settings.ts';

const settings = readSettings(
  {
    ...kafkaSettings,
    events: int('BENCH_EVENTS', 20_000, { min: 100, max: 1_000_000 }),
    batch: int('BENCH_BATCH', 100, { min: 1, max: 10_000 }),
    rate: int('BENCH_RATE', 500, { min: 1, max: 100_000 }),
    seconds: int('BENCH_SECONDS', 10, { min: 1, max: 120 }),
  },
  process.env,
);

const logger = createLogger({ name: 'bench-bus', level: 'warn' }, process.stderr as never);
const kafka = createKafka({ brokers: settings.kafkaBrokers, clientId: 'bench-bus', logger });
const catalog = loadCatalog();
const admin = kafka.admin();
await admin.connect();
const producer = await createEventProducer({ kafka, catalog });

const suffix = randomBytes(4).toString('hex');
const topic = (name: string, partitions: number): TopicDeclaration => ({
  name: `bench.${name}-${suffix}`,
  partitions,
  cleanupPolicy: 'delete',
  retentionMs: 3_600_000,
  maxMessageBytes: 1_048_576,
});
const throughputTopic = topic('throughput', 6);
const latencyTopic = topic('latency', 6);
await ensureTopics(
  admin,
  [throughputTopic, latencyTopic, { ...latencyTopic, name: `${latencyTopic.name}.dlq` }],
  logger,
);

// A typical report: one trial, three metrics at one step.
const report = (trial: number): OutgoingEvent => {
  const now = Date.now();
  const stamp = new Date(now).toISOString().replace('Z', '000Z');
  return {
    eventType: 'ObservationLogReported',
    key: `trial-${trial}`,
    payload: {
      event_id: randomUUID(),
      occurred_at: now,
      trial_name: `trial-${trial}`,
      metric_logs: ['loss', 'accuracy', 'lr'].map((name, i) => ({
        time_stamp: stamp,
        metric_name: name,
        value: String(0.1 * (i + 1)),
      })),
    },
  };
};

const rows: Array<[string, string]> = [];
const print = (label: string, value: string) => {
  rows.push([label, value]);
  process.stdout.write(`${label.padEnd(52)} ${value}\n`);
};

async function throughput(batch: number, total: number): Promise<number> {
  const started = performance.now();
  for (let sent = 0; sent < total; sent += batch) {
    const events = Array.from({ length: Math.min(batch, total - sent) }, (_, i) => report((sent + i) % 200));
    await producer.publish(throughputTopic.name, events);
  }
  return total / ((performance.now() - started) / 1000);
}

process.stdout.write(`bus benchmark on ${settings.kafkaBrokers.join(',')} (acks=all, idempotent)\n`);
await throughput(settings.batch, Math.min(2_000, settings.events)); // warm-up: connections, metadata
const single = Math.min(2_000, settings.events);
print(
  `producer, 1 event per send (${single} events)`,
  `${(await throughput(1, single)).toFixed(0)} events/s`,
);
print(
  `producer, ${settings.batch} events per send (${settings.events} events)`,
  `${(await throughput(settings.batch, settings.events)).toFixed(0)} events/s`,
);

// Latency: publish at a steady rate; the worker notes when each event reaches its handler.
const sentAt = new Map<string, number>();
const latencies: number[] = [];
const worker = await startWorker({
  kafka,
  catalog,
  producer,
  logger,
  groupId: `bench-${suffix}`,
  topics: [latencyTopic.name],
  fromBeginning: false,
  maxWaitTimeInMs: 100,
  handle: async (events) => {
    const now = performance.now();
    for (const e of events) {
      const start = sentAt.get(String(e.payload.event_id));
      if (start !== undefined) latencies.push(now - start);
    }
  },
});
await worker.joined;
await sleep(500);
const total = settings.rate * settings.seconds;
const interval = 1000 / settings.rate;
const began = performance.now();
const inFlight: Promise<unknown>[] = [];
for (let i = 0; i < total; i++) {
  const due = began + i * interval;
  const wait = due - performance.now();
  if (wait > 1) await sleep(wait);
  const event = report(i % 200);
  sentAt.set(String((event.payload as { event_id: string }).event_id), performance.now());
  inFlight.push(producer.publish(latencyTopic.name, [event]));
  if (inFlight.length >= 64) await Promise.all(inFlight.splice(0));
}
await Promise.all(inFlight);
const deadline = performance.now() + 30_000;
while (latencies.length < total && performance.now() < deadline) await sleep(50);
await worker.stop();

const sorted = latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
print(
  `end-to-end, ${settings.rate} events/s for ${settings.seconds}s, 1 worker`,
  `${sorted.length}/${total} events delivered`,
);
print('end-to-end latency p50', `${pct(50).toFixed(1)} ms`);
print('end-to-end latency p99', `${pct(99).toFixed(1)} ms`);
print('end-to-end latency max', `${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms`);

await admin.deleteTopics({ topics: [throughputTopic.name, latencyTopic.name, `${latencyTopic.name}.dlq`] });
await admin.deleteGroups([`bench-${suffix}`]).catch(() => undefined);
await producer.disconnect();
await admin.disconnect();
