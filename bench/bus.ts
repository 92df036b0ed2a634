// Bus benchmark on one Kafka client (KAFKA_CLIENT): acknowledged producer throughput, reading a
// topic back, and end-to-end latency through one worker, each with this process's CPU per event.
// Bounded: BENCH_EVENTS events per throughput run, BENCH_RATE events/s for BENCH_SECONDS seconds in
// the latency run. Uses its own topics and deletes them at the end. With BENCH_JSON=1 it prints one
// JSON line of figures (bench/bus-compare.ts runs it once per client).
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createBus,
  createEventProducer,
  kafkaSettings,
  type OutgoingEvent,
  readTopic,
  startEventConsumer,
  type TopicDeclaration,
} from '../shared/bus/index.ts';
import { createLogger } from '../shared/logger.ts';
import { bool, int, readSettings } from '../shared/settings.ts';
import { percentile } from './stats.ts';

const settings = readSettings(
  {
    ...kafkaSettings,
    events: int('BENCH_EVENTS', 20_000, { min: 100, max: 1_000_000 }),
    batch: int('BENCH_BATCH', 100, { min: 1, max: 10_000 }),
    rate: int('BENCH_RATE', 500, { min: 1, max: 100_000 }),
    seconds: int('BENCH_SECONDS', 10, { min: 1, max: 120 }),
    json: bool('BENCH_JSON', false),
  },
  process.env,
);

const logger = createLogger({ name: 'bench-bus', level: 'warn' }, process.stderr as never);
const bus = createBus({
  brokers: settings.kafkaBrokers,
  clientId: 'bench-bus',
  client: settings.kafkaClient,
  logger,
});
const producer = await createEventProducer(bus);

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
const created = [throughputTopic, latencyTopic, { ...latencyTopic, name: `${latencyTopic.name}.dlq` }];
await bus.ensureTopics(created);

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

const figures: Record<string, number> = {};
const print = (label: string, value: string) => {
  if (!settings.json) process.stdout.write(`${label.padEnd(56)} ${value}\n`);
};

/** Runs `work`, returning events/s and CPU µs of this process per event. */
async function measured(events: number, work: () => Promise<void>): Promise<{ rate: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { rate: events / seconds, cpuUs: (used.user + used.system) / events };
}

const produce = (batch: number, total: number) =>
  measured(total, async () => {
    for (let sent = 0; sent < total; sent += batch) {
      const events = Array.from({ length: Math.min(batch, total - sent) }, (_, i) =>
        report((sent + i) % 200),
      );
      await producer.publish(throughputTopic.name, events);
    }
  });

if (!settings.json)
  process.stdout.write(
    `bus benchmark on ${settings.kafkaBrokers.join(',')} with ${bus.client.name} (acks=all, idempotent)\n`,
  );
await produce(settings.batch, Math.min(2_000, settings.events)); // warm-up: connections, metadata
const single = Math.min(2_000, settings.events);
const one = await produce(1, single);
print(
  `producer, 1 event per send (${single} events)`,
  `${one.rate.toFixed(0)} events/s, ${one.cpuUs.toFixed(0)} µs CPU/event`,
);
const many = await produce(settings.batch, settings.events);
print(
  `producer, ${settings.batch} events per send (${settings.events} events)`,
  `${many.rate.toFixed(0)} events/s, ${many.cpuUs.toFixed(1)} µs CPU/event`,
);
// 64 callers publishing one event each at a time: what gRPC handlers do.
const callers = 64;
const concurrent = await measured(settings.events, async () => {
  let next = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < settings.events) {
        next++;
        await producer.publish(throughputTopic.name, [report(next % 200)]);
      }
    }),
  );
});
print(
  `producer, ${callers} callers of 1 event (${settings.events} events)`,
  `${concurrent.rate.toFixed(0)} events/s, ${concurrent.cpuUs.toFixed(1)} µs CPU/event`,
);

const stored = (await bus.watermarks(throughputTopic.name)).reduce((n, w) => n + Number(w.high - w.low), 0);
let readBack = 0;
const read = await measured(stored, async () => {
  const reader = await readTopic(bus, {
    topic: throughputTopic.name,
    from: 'beginning',
    until: 'end',
    onEvent: () => void readBack++,
  });
  await reader.done;
});
print(
  `readTopic from the beginning (${readBack} events)`,
  `${read.rate.toFixed(0)} events/s, ${read.cpuUs.toFixed(1)} µs CPU/event`,
);

// Latency: publish at a steady rate; the worker notes when each event reaches its handler.
const sentAt = new Map<string, number>();
const latencies: number[] = [];
const group = `bench-${suffix}`;
const worker = await startEventConsumer({
  bus,
  producer,
  logger,
  groupId: group,
  topics: [latencyTopic.name],
  maxWaitMs: 100,
  handle: async (events) => {
    const now = performance.now();
    for (const e of events) {
      const start = sentAt.get(e.eventType === 'ObservationLogReported' ? e.payload.event_id : '');
      if (start !== undefined) latencies.push(now - start);
    }
  },
});
await worker.joined;
await sleep(500);
const total = settings.rate * settings.seconds;
const interval = 1000 / settings.rate;
const cpuBefore = process.cpuUsage();
const began = performance.now();
const inFlight: Promise<unknown>[] = [];
for (let i = 0; i < total; i++) {
  const due = began + i * interval;
  const wait = due - performance.now();
  if (wait > 1) await sleep(wait);
  const event = report(i % 200);
  if (event.eventType === 'ObservationLogReported') sentAt.set(event.payload.event_id, performance.now());
  inFlight.push(producer.publish(latencyTopic.name, [event]));
  if (inFlight.length >= 64) await Promise.all(inFlight.splice(0));
}
await Promise.all(inFlight);
const deadline = performance.now() + 30_000;
while (latencies.length < total && performance.now() < deadline) await sleep(50);
const cpuLatency = process.cpuUsage(cpuBefore);
await worker.stop();

print(
  `end-to-end, ${settings.rate} events/s for ${settings.seconds}s, 1 worker`,
  `${latencies.length}/${total} events delivered`,
);
print(
  'end-to-end latency p50 / p99 / max',
  [50, 99, 100].map((p) => `${percentile(latencies, p).toFixed(1)} ms`).join(' / '),
);
const e2eCpuUs = (cpuLatency.user + cpuLatency.system) / total;
print('end-to-end CPU per event (produce + consume)', `${e2eCpuUs.toFixed(0)} µs`);
const rssMiB = process.memoryUsage.rss() / 1024 / 1024;
print('process RSS at the end', `${rssMiB.toFixed(0)} MiB`);

Object.assign(figures, {
  produceOneRate: one.rate,
  produceOneCpuUs: one.cpuUs,
  produceBatchRate: many.rate,
  produceBatchCpuUs: many.cpuUs,
  produceConcurrentRate: concurrent.rate,
  produceConcurrentCpuUs: concurrent.cpuUs,
  readRate: read.rate,
  readCpuUs: read.cpuUs,
  delivered: latencies.length,
  expected: total,
  latencyP50: percentile(latencies, 50),
  latencyP99: percentile(latencies, 99),
  latencyMax: percentile(latencies, 100),
  e2eCpuUs,
  rssMiB,
});
if (settings.json) process.stdout.write(`${JSON.stringify({ client: bus.client.name, ...figures })}\n`);

await bus.client.deleteTopics(created.map((t) => t.name));
await bus.client.deleteGroups([group]).catch(() => undefined);
await producer.disconnect();
await bus.close();
