// One instance, one process: the main thread runs the configuration source, the debug listener and
// decision unit 0; RATELIMIT_WORKERS - 1 decision threads listen on the same ports (SO_REUSEPORT)
// and get each configuration the main thread loaded, as data.
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createMetricsRegistry } from '../../../shared/metrics.ts';
import { createStatsStore } from '../domain/stats.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import { startConfigSource } from './config-source.ts';
import { createDecisionThreads } from './decision-threads.ts';
import { startDecisionUnit } from './decision-unit.ts';
import { createInstanceStats } from './instance-stats.ts';
import { startDebugListener } from './listeners.ts';

export async function runInstance(settings: RatelimitSettings, logger: Logger, lifecycle: Lifecycle) {
  const stats = createStatsStore();
  const registry = createMetricsRegistry('ratelimit');
  const unit = await startDecisionUnit({ settings, logger, lifecycle, stats });
  const threadCount = settings.decisionUnits - 1;
  const threads = createDecisionThreads({ count: threadCount, settings, logger, lifecycle });
  await startConfigSource({
    settings,
    logger,
    lifecycle,
    stats,
    registry,
    health: {
      setStatus(service, status) {
        unit.setHealth(service, status);
        threads.setStatus(service, status);
      },
    },
    onConfig(loaded) {
      unit.config.apply(loaded);
      const { config, source, mergeDomainConfig } = loaded;
      threads.apply({ rl: 'config', data: config.data, source, mergeDomainConfig });
    },
  });
  await unit.ready();
  // Every unit ready before any listens: the instance answers on its ports with all its units.
  await threads.start();
  const instance = createInstanceStats({
    own: () => unit.report(0),
    threads: () => threads.reports(),
    registry,
    configVersion: () => unit.config.current()?.version,
  });
  await startDebugListener({
    settings,
    logger,
    lifecycle,
    config: unit.config.current,
    counters: unit.counters,
    stats: instance.collect,
    registry: { metrics: instance.metrics, contentType: registry.contentType },
  });
  const ports = await unit.listen({
    httpPort: settings.port,
    grpcPort: settings.grpcPort,
    shared: threadCount > 0 ? 'first' : 'alone',
  });
  await threads.listen(ports);
  if (threadCount > 0) logger.warn({ decisionUnits: settings.decisionUnits }, 'decision threads ready');
}
