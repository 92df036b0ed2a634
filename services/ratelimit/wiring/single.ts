// One process does everything (RATELIMIT_WORKERS=1): configuration source, decisions, debug port.
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createMetricsRegistry } from '../../../shared/metrics.ts';
import { createDebugHandler, statsLines } from '../adapters/http/debug-server.ts';
import { startHttpServer } from '../adapters/http/http-server.ts';
import { createConfigRuntime } from '../config-runtime.ts';
import { createStatsStore } from '../domain/stats.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import { startConfigSource } from './config-source.ts';
import { type Decider, startDecider } from './decider.ts';

export async function runSingle(settings: RatelimitSettings, logger: Logger, lifecycle: Lifecycle) {
  const stats = createStatsStore();
  const registry = createMetricsRegistry('ratelimit');
  let decider: Decider | undefined;
  const config = createConfigRuntime({
    stats,
    logger,
    onApplied: (loaded) => decider?.health.set('config', loaded.domains.length > 0),
  });
  decider = await startDecider({ settings, logger, lifecycle, stats, registry, config });
  await startConfigSource({
    settings,
    logger,
    lifecycle,
    apply: (found) => config.apply(found.files, found.source, found.mergeDomainConfig),
  });
  if (config.current() !== undefined) decider.health.set('config', config.current()!.domains.length > 0);
  if (!settings.forceStartWithoutInitialConfig) {
    logger.info('waiting for the initial configuration');
    await config.first;
  }
  const gauges = decider.gauges;
  const debug = await startHttpServer({
    host: settings.debugHost,
    port: settings.debugPort,
    name: 'debug server',
    handler: createDebugHandler({
      config: config.current,
      stats: async () => statsLines(stats, gauges),
      registry,
      logger,
    }),
    logger,
  });
  lifecycle.onStop('debug server', () => debug.stop());
  await decider.listen();
}
