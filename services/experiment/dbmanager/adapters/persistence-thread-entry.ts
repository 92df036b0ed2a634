// The persistence thread: the persistence consumer on connections of its own (Kafka, the store, the
// read model), so that applying the topics to the store never takes the request thread's time.
// Besides what every component thread says, it tells the request thread how the store answers
// (for the read barrier's fast failure), its commits and its partitions (read barrier, admission).
import { workerData } from 'node:worker_threads';
import { Registry } from 'prom-client';
import { createBus, createEventProducer, unprobedKafkaLink } from '../../../../shared/bus/index.ts';
import { runComponentThread } from '../../../../shared/component-thread/thread-side.ts';
import { toAppError } from '../../../../shared/errors.ts';
import { createLogger } from '../../../../shared/logger.ts';
import type { ObservationStore } from '../../common/ports.ts';
import { openObservationStore, readModelDatabaseOf } from './observation-store-config.ts';
import { startPersistenceConsumer } from './persistence-consumer.ts';
import type { FromThread, PersistenceThreadConfig } from './persistence-thread-protocol.ts';
import { openReadModel, type ReadModelStore } from './read-model-store.ts';

const config = workerData as PersistenceThreadConfig;
const logger = createLogger({ name: 'experiment', level: config.logLevel });
const registry = new Registry();

/** The store, telling the request thread when it stops and starts answering. */
function reporting(store: ObservationStore, tell: (message: FromThread) => void): ObservationStore {
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

await runComponentThread<FromThread>({
  registry,
  async start({ tell, onClose }) {
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
    // The request thread probes Kafka for the process; this thread's failures reach its supervisor.
    const bus = createBus({ ...config.kafka, logger, link: unprobedKafkaLink() });
    onClose(() => bus.close());
    const producer = await createEventProducer(bus, { registry });
    onClose(() => producer.disconnect());
    const store = reporting(await openObservationStore(config.store, logger), tell);
    onClose(() => store.close());
    let readModel: ReadModelStore | undefined;
    if (config.readModel) {
      readModel = await openReadModel(readModelDatabaseOf(config.store), store);
      onClose(() => readModel!.close());
    }
    const consumer = await startPersistenceConsumer({
      bus,
      producer,
      store,
      ...(readModel ? { readModel } : {}),
      topics: config.topics,
      groupId: config.groupId,
      sessionTimeoutMs: config.sessionTimeoutMs,
      batchWaitMs: config.batchWaitMs,
      onCommitted: committed,
      onAssigned: (assignment) => tell({ kind: 'assigned', assignment: [...assignment] }),
      rebuildReadModel: config.rebuildReadModel,
      logger,
      registry,
    });
    onClose(() => consumer.stop());
    return consumer;
  },
});
