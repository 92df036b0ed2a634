// One process does everything (RATELIMIT_WORKERS=1): the configuration source, one decision unit,
// the debug listener.
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createMetricsRegistry } from '../../../shared/metrics.ts';
import { statsLines } from '../adapters/http/debug-server.ts';
import { createStatsStore } from '../domain/stats.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import { startConfigSource } from './config-source.ts';
import { startDecisionUnit } from './decision-unit.ts';
import { startDebugListener } from './listeners.ts';

export async function runSingle(settings: RatelimitSettings, logger: Logger, lifecycle: Lifecycle) {
  const stats = createStatsStore();
  const registry = createMetricsRegistry('ratelimit');
  const unit = await startDecisionUnit({ settings, logger, lifecycle, stats, registry });
  await startConfigSource({ settings, logger, lifecycle, stats, onConfig: unit.config.apply });
  await unit.ready();
  await startDebugListener({
    settings,
    logger,
    lifecycle,
    config: unit.config.current,
    stats: async () => statsLines(stats, unit.gauges),
    registry,
  });
  await unit.listen();
}
