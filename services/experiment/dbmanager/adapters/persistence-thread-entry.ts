// The persistence thread: the persistence consumer on connections of its own (Kafka, the store, the
// read model), so that applying the topics to the store never takes the request thread's time.
// It tells the request thread when it runs, when it failed (then it ends), how the store answers
// (for the read barrier's fast failure) and its counters (for /metrics).
import { parentPort, workerData } from 'node:worker_threads';
import { Counter, Registry } from 'prom-client';
import {
  createBus,
  createEventProducer,
  type EventConsumer,
  unprobedKafkaLink,
} from '../../../../shared/bus/index.ts';
import { toAppError } from '../../../../shared/errors.ts';
import { createLogger } from '../../../../shared/logger.ts';
import type { ObservationStore } from '../../common/ports.ts';
import { openObservationStore, readModelDatabaseOf } from './observation-store-config.ts';
import { startPersistenceConsumer } from './persistence-consumer.ts';
import type {
  CounterDelta,
  FromThread,
  PersistenceThreadConfig,
  ToThread,
} from './persistence-thread-protocol.ts';
import { openReadModel, type ReadModelStore } from './read-model-store.ts';

const COUNTERS_EVERY_MS = 1_000;

const port = parentPort!;
const config = workerData as PersistenceThreadConfig;
const tell = (message: FromThread): void => port.postMessage(message);
const logger = createLogger({ name: 'experiment', level: config.logLevel });
const registry = new Registry();
const closing: Array<() => Promise<unknown>> = [];

/** The store, telling the request thread when it stops and starts answering. */
function reporting(store: ObservationStore): ObservationStore {
  let lost = false;
  const watched =
    <A extends unknown[], T>(call: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      try {
        const value = await call(...args);
        if (lost) tell({ kind: 'store' });
        lost = false;
        return value;
      } catch (error) {
        const failure = toAppError(error);
        if (failure.code === 'UNAVAILABLE' && !lost) {
          lost = true;
          tell({ kind: 'store', lost: { code: failure.code, message: failure.message } });
        }
        throw error;
      }
    };
  return { ...store, apply: watched(store.apply), ping: watched(store.ping) };
}

/** Counter increases since the last call, from this thread's registry. */
const sent = new Map<string, number>();
async function counterDeltas(): Promise<CounterDelta[]> {
  const deltas: CounterDelta[] = [];
  for (const counter of registry.getMetricsAsArray()) {
    if (!(counter instanceof Counter)) continue;
    const metric = await counter.get();
    for (const { labels, value } of metric.values) {
      const key = `${metric.name}${JSON.stringify(labels)}`;
      const delta = value - (sent.get(key) ?? 0);
      if (delta === 0) continue;
      sent.set(key, value);
      deltas.push({ name: metric.name, help: metric.help, labels: labels as Record<string, string>, delta });
    }
  }
  return deltas;
}
const reportCounters = async (): Promise<void> => {
  const deltas = await counterDeltas();
  if (deltas.length > 0) tell({ kind: 'counters', deltas });
};

/** Commits of one turn (the partitions of one fetch) travel in one message. */
let commits: [string, number, bigint][] = [];
const committed = (topic: string, partition: number, next: bigint): void => {
  if (commits.length === 0)
    setImmediate(() => {
      tell({ kind: 'committed', commits });
      commits = [];
    });
  commits.push([topic, partition, next]);
};

async function closeAll(): Promise<void> {
  for (const close of closing.splice(0).reverse()) await close().catch(() => undefined);
}

async function start(): Promise<EventConsumer> {
  // The request thread probes Kafka for the process; this thread's failures reach its supervisor.
  const bus = createBus({ ...config.kafka, logger, link: unprobedKafkaLink() });
  closing.push(() => bus.close());
  const producer = await createEventProducer(bus, { registry });
  closing.push(() => producer.disconnect());
  const store = reporting(await openObservationStore(config.store, logger));
  closing.push(() => store.close());
  let readModel: ReadModelStore | undefined;
  if (config.readModel) {
    readModel = await openReadModel(readModelDatabaseOf(config.store), store);
    closing.push(() => readModel!.close());
  }
  const consumer = await startPersistenceConsumer({
    bus,
    producer,
    store,
    ...(readModel ? { readModel } : {}),
    groupId: config.groupId,
    sessionTimeoutMs: config.sessionTimeoutMs,
    batchWaitMs: config.batchWaitMs,
    onCommitted: committed,
    onAssigned: (assignment) => tell({ kind: 'assigned', assignment: [...assignment] }),
    rebuildReadModel: config.rebuildReadModel,
    logger,
    registry,
  });
  closing.push(() => consumer.stop());
  return consumer;
}

const timer = setInterval(() => void reportCounters().catch(() => undefined), COUNTERS_EVERY_MS);
try {
  const consumer = await start();
  tell({ kind: 'started' });
  port.on('message', (message: ToThread) => {
    if (message.kind !== 'stop') return;
    void (async () => {
      clearInterval(timer);
      await closeAll();
      await reportCounters().catch(() => undefined);
      tell({ kind: 'stopped' });
      port.close();
    })();
  });
  consumer.ended.catch(async (error: unknown) => {
    clearInterval(timer);
    await reportCounters().catch(() => undefined);
    tell({ kind: 'failed', message: (error as Error).message, stack: (error as Error).stack });
    await closeAll();
    port.close();
  });
} catch (error) {
  clearInterval(timer);
  tell({ kind: 'failed', message: toAppError(error).message, stack: (error as Error).stack });
  await closeAll();
  port.close();
}
