// A decision thread: one decision unit on the instance's ports, fed configurations as data by the
// main thread, answering its questions for /stats and /metrics, stopping when told to.
import { parentPort } from 'node:worker_threads';
import { createLifecycle } from '../../../shared/lifecycle.ts';
import { createRatelimitLogger } from '../adapters/telemetry/logging.ts';
import { configFromData } from '../config/from-data.ts';
import { createStatsStore } from '../domain/stats.ts';
import { type DecisionUnit, startDecisionUnit } from './decision-unit.ts';
import { type ConfigMessage, type FromThread, isToThread, type ThreadStart } from './messages.ts';

export async function runDecisionThread(start: ThreadStart): Promise<void> {
  const { settings, unit: unitNumber } = start;
  const send = (message: FromThread): void => parentPort!.postMessage(message);
  const logger = createRatelimitLogger({ level: settings.logLevel, format: settings.logFormat }).child({
    decisionThread: unitNumber,
  });
  const lifecycle = createLifecycle({ logger, deadlineMs: settings.shutdownDeadlineMs });
  const stats = createStatsStore();
  let unit: DecisionUnit | undefined;
  let pending: ConfigMessage | undefined = start.config;
  const health = new Map(start.health);
  const apply = (message: ConfigMessage): void =>
    unit!.config.apply({
      config: configFromData(message.data),
      source: message.source,
      mergeDomainConfig: message.mergeDomainConfig,
    });

  parentPort!.on('message', (message: unknown) => {
    if (!isToThread(message)) return;
    if (message.rl === 'config') {
      if (unit === undefined) pending = message;
      else apply(message);
    } else if (message.rl === 'ask') {
      if (unit !== undefined) send({ rl: 'answer', id: message.id, report: unit.report(unitNumber) });
    } else if (message.rl === 'listen') {
      listen(message);
    } else if (message.rl === 'health') {
      if (unit === undefined) health.set(message.service, message.status);
      else unit.setHealth(message.service, message.status);
    } else {
      void lifecycle.stop('the instance stops').then((clean) => process.exit(clean ? 0 : 1));
    }
  });

  const failed = async (error: unknown): Promise<void> => {
    logger.fatal({ err: error }, 'decision thread failed to start');
    await lifecycle.stop('start-up failure');
    process.exit(1);
  };
  const listen = (ports: { httpPort: number; grpcPort: number }): void => {
    unit!.listen({ ...ports, shared: 'joining' }).then(() => send({ rl: 'listening' }), failed);
  };
  try {
    unit = await startDecisionUnit({ settings, logger, lifecycle, stats });
    if (pending !== undefined) apply(pending);
    for (const [service, status] of health) unit.setHealth(service, status);
    await unit.ready();
  } catch (error) {
    return failed(error);
  }
  send({ rl: 'ready' });
}
