// A worker in its own process, so a test can SIGKILL it in the middle of a batch. Its effect is
// one line per event id in OUT_FILE, written and fsynced before the batch is committed; ids
// already in the file are skipped, which is what makes redelivery harmless.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBus, createEventProducer, startEventConsumer } from '../../shared/bus/index.ts';
import { createLifecycle } from '../../shared/lifecycle.ts';
import { createLogger } from '../../shared/logger.ts';
import { testKafkaClient } from './kafka.ts';

const { KAFKA_BROKERS = '', TOPIC = '', GROUP = '', OUT_FILE = '', DELAY_MS = '0' } = process.env;
const logger = createLogger({ name: 'bus-consumer-process', level: 'warn' });
const bus = createBus({
  brokers: KAFKA_BROKERS.split(','),
  clientId: 'bus-consumer-process',
  client: testKafkaClient,
  logger,
});
const lifecycle = createLifecycle({ logger, deadlineMs: 20_000 });

const seen = new Set(existsSync(OUT_FILE) ? readFileSync(OUT_FILE, 'utf8').split('\n').filter(Boolean) : []);
const out = openSync(OUT_FILE, 'a');
lifecycle.onStop('kafka', () => bus.close());
lifecycle.onStop('out file', () => closeSync(out));

const producer = await createEventProducer(bus);
lifecycle.onStop('producer', () => producer.disconnect());
const worker = await startEventConsumer({
  bus,
  producer,
  logger,
  groupId: GROUP,
  topics: [TOPIC],
  maxBatchEvents: 50,
  handle: async (events) => {
    for (const event of events) {
      const id = 'event_id' in event.payload ? event.payload.event_id : '';
      if (seen.has(id)) continue;
      writeSync(out, `${id}\n`);
      fsyncSync(out);
      seen.add(id);
      await sleep(Number(DELAY_MS));
    }
  },
});
lifecycle.onStop('worker', () => worker.stop());
lifecycle.stopOnSignals();
await worker.joined;
process.stdout.write('joined\n');
