// A decision process (RATELIMIT_WORKERS > 1): one decision unit on ports shared through
// node:cluster, fed configurations as data by the primary, answering its questions for /stats.
import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createMetricsRegistry } from '../../../shared/metrics.ts';
import { statsLines } from '../adapters/http/debug-server.ts';
import { configFromData } from '../config/index.ts';
import { createStatsStore, SERVICE_STATS } from '../domain/stats.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import { type DecisionUnit, startDecisionUnit } from './decision-unit.ts';
import { type DecisionProcessMessage, isPrimaryMessage } from './messages.ts';

export async function runDecisionProcess(settings: RatelimitSettings, logger: Logger, lifecycle: Lifecycle) {
  const send = (message: DecisionProcessMessage): void => void process.send?.(message);
  const id = cluster.worker?.id ?? 0;
  const stats = createStatsStore();
  const registry = createMetricsRegistry('ratelimit');
  // An AggregatorRegistry made in a decision process installs the answer to the primary's scrapes.
  void new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  // Counted as each process did when it loaded the configuration itself: its statsd and Prometheus
  // counters go on saying it applied one (the primary's /stats shows the instance's own count).
  const applied = stats.counter(SERVICE_STATS.configLoadSuccess);
  let unit: DecisionUnit | undefined;
  const early: Array<() => void> = [];
  process.on('message', (message: unknown) => {
    if (!isPrimaryMessage(message)) return;
    if (message.rl === 'config') {
      const apply = (): void => {
        applied.value++;
        unit!.config.apply({
          config: configFromData(message.data),
          source: message.source,
          mergeDomainConfig: message.mergeDomainConfig,
        });
      };
      if (unit === undefined) early.push(apply);
      else apply();
    } else if (message.rl === 'stats?') {
      const lines = [...statsLines(stats, unit?.gauges ?? (() => []))];
      // Per process too: which one answered how much, and what it holds.
      const self = `ratelimit.worker.${id}`;
      lines.push([`${self}.pid`, process.pid], [`${self}.rss_bytes`, process.memoryUsage.rss()]);
      lines.push([`${self}.total_requests`, stats.counter(SERVICE_STATS.shouldRateLimitTotal).value]);
      send({ rl: 'stats', id: message.id, lines });
    }
  });
  // Without its primary a decision process is an orphan holding ports: it stops.
  process.on('disconnect', () => {
    logger.warn('the primary is gone; stopping');
    void lifecycle.stop('primary gone').then((clean) => process.exit(clean ? 0 : 1));
  });

  unit = await startDecisionUnit({ settings, logger, lifecycle, stats, registry });
  for (const apply of early.splice(0)) apply();
  send({ rl: 'config?' });
  await unit.ready();
  await unit.listen();
  send({ rl: 'ready', id });
}
