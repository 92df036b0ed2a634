// The primary of RATELIMIT_WORKERS decision processes (node:cluster, sharing the gRPC and HTTP
// ports): it runs the configuration source, hands each configuration to every process as data,
// and serves the instance's debug port.
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { moduleFile } from '../../../shared/module-file.ts';
import { createConfigInForce } from '../config-in-force.ts';
import { createStatsStore } from '../domain/stats.ts';
import type { SourcedConfig } from '../ports.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import { primeCompileCache } from './compile-cache.ts';
import { startConfigSource } from './config-source.ts';
import { createDecisionProcesses } from './decision-processes.ts';
import { createInstanceStats } from './instance-stats.ts';
import { startDebugListener } from './listeners.ts';
import type { PrimaryMessage } from './messages.ts';

const DECISION_PROCESS_ENTRY = moduleFile(import.meta.url, '../decision-process-main');

const configMessage = ({ config, source, mergeDomainConfig }: SourcedConfig): PrimaryMessage => ({
  rl: 'config',
  data: config.data,
  source,
  mergeDomainConfig,
});

export async function runPrimary(
  settings: RatelimitSettings,
  logger: Logger,
  lifecycle: Lifecycle,
  count: number,
): Promise<void> {
  const stats = createStatsStore();
  // Loaded here only: a configuration that does not load is not sent, and /rlconfig shows this one.
  const config = createConfigInForce({ logger });
  let latest: SourcedConfig | undefined;

  const execArgv = [
    ...process.execArgv,
    ...settings.decisionProcessNodeOptions.split(/\s+/).filter((o) => o !== ''),
  ];
  // Advanced serialization: a configuration's data (Maps) crosses the IPC channel whole.
  cluster.setupPrimary({ exec: DECISION_PROCESS_ENTRY, execArgv, serialization: 'advanced' });
  const env = await primeCompileCache(DECISION_PROCESS_ENTRY, execArgv, logger);
  const processes = createDecisionProcesses({
    count,
    env,
    logger,
    lifecycle,
    onMessage(from, message) {
      if (message.rl === 'config?') {
        if (latest !== undefined) processes.send(from, configMessage(latest));
      } else instanceStats.answered(message.id, message.lines);
    },
  });
  const instanceStats = createInstanceStats({ stats, processes: processes.connected, send: processes.send });

  await startConfigSource({
    settings,
    logger,
    lifecycle,
    stats,
    onConfig(loaded) {
      config.apply(loaded);
      latest = loaded;
      for (const child of processes.connected()) processes.send(child, configMessage(loaded));
    },
  });

  const aggregator = new AggregatorRegistry();
  const started = processes.start();
  await startDebugListener({
    settings,
    logger,
    lifecycle,
    config: config.current,
    stats: () => instanceStats.collect(),
    registry: {
      metrics: () => aggregator.clusterMetrics(),
      contentType: aggregator.contentType as Registry['contentType'],
    },
  });
  await started;
  logger.warn({ decisionProcesses: count }, 'decision processes ready');
}
