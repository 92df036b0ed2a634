// A decision worker (RATELIMIT_WORKERS > 1): counter store, gRPC and HTTP listeners shared with the
// other workers through node:cluster. The primary sends it every configuration it loads and asks it
// for its stats; Prometheus scrapes reach it through prom-client's cluster aggregation.
import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createMetricsRegistry } from '../../../shared/metrics.ts';
import { statsLines } from '../adapters/http/debug-server.ts';
import { createConfigRuntime } from '../config-runtime.ts';
import { createStatsStore, SERVICE_STATS } from '../domain/stats.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import { type Decider, startDecider } from './decider.ts';
import { isPrimaryMessage, type WorkerMessage } from './messages.ts';

export async function runWorker(settings: RatelimitSettings, logger: Logger, lifecycle: Lifecycle) {
  const send = (message: WorkerMessage): void => void process.send?.(message);
  const stats = createStatsStore();
  const registry = createMetricsRegistry('ratelimit');
  // An AggregatorRegistry made in a worker installs the answer to the primary's scrapes.
  void new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  let decider: Decider | undefined;
  const config = createConfigRuntime({
    stats,
    logger,
    onApplied: (loaded) => decider?.health.set('config', loaded.domains.length > 0),
  });
  process.on('message', (message: unknown) => {
    if (!isPrimaryMessage(message)) return;
    if (message.rl === 'config') {
      const { files, source, mergeDomainConfig } = message.found;
      config.apply(files, source, mergeDomainConfig);
    } else if (message.rl === 'stats?') {
      const lines = [...statsLines(stats, decider?.gauges ?? (() => []))];
      // Per worker too: which process answered how much, and what it holds.
      const self = `ratelimit.worker.${cluster.worker?.id ?? 0}`;
      lines.push([`${self}.pid`, process.pid], [`${self}.rss_bytes`, process.memoryUsage.rss()]);
      lines.push([`${self}.total_requests`, stats.counter(SERVICE_STATS.shouldRateLimitTotal).value]);
      send({ rl: 'stats', id: message.id, lines });
    }
  });
  // Without its primary a worker is an orphan holding ports: it stops.
  process.on('disconnect', () => {
    logger.warn('the primary is gone; stopping');
    void lifecycle.stop('primary gone').then((clean) => process.exit(clean ? 0 : 1));
  });

  decider = await startDecider({ settings, logger, lifecycle, stats, registry, config });
  send({ rl: 'config?' });
  if (config.current() !== undefined) decider.health.set('config', config.current()!.domains.length > 0);
  if (!settings.forceStartWithoutInitialConfig) await config.first;
  await decider.listen();
  send({ rl: 'ready', worker: cluster.worker?.id ?? 0 });
}
