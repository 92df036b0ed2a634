// The early-stopping thread: the judge on Kafka connections of its own.
import { workerData } from 'node:worker_threads';
import { Registry } from 'prom-client';
import { createBus, createEventProducer, unprobedKafkaLink } from '../../../../shared/bus/index.ts';
import { systemClock } from '../../../../shared/clock.ts';
import { runComponentThread } from '../../../../shared/component-thread/thread-side.ts';
import { createLogger } from '../../../../shared/logger.ts';
import { startEarlyStoppingJudge } from './early-stopping-judge.ts';
import type { JudgeThreadConfig } from './judge-thread-protocol.ts';

const config = workerData as JudgeThreadConfig;
const logger = createLogger({ name: 'experiment', level: config.logLevel });
const registry = new Registry();

await runComponentThread({
  registry,
  async start({ onClose }) {
    // The request thread probes Kafka for the process; this thread's failures reach its supervisor.
    const bus = createBus({ ...config.kafka, logger, link: unprobedKafkaLink() });
    onClose(() => bus.close());
    const producer = await createEventProducer(bus, { registry });
    onClose(() => producer.disconnect());
    const judge = await startEarlyStoppingJudge({
      bus,
      producer,
      clock: systemClock,
      logger,
      topics: config.topics,
      groupId: config.groupId,
      sessionTimeoutMs: config.sessionTimeoutMs,
      catchUpTimeoutMs: config.catchUpTimeoutMs,
      lookbackMs: config.lookbackMs,
      registry,
    });
    onClose(() => judge.stop());
    return judge;
  },
});
