// The rate limit service's entry point: reads the settings, then runs one process doing everything
// (RATELIMIT_WORKERS=1), or a primary and its decision workers (node:cluster). The wiring is in
// ./wiring/: the configuration source and the decider are separate modules, so another source
// (xDS, say) plugs in beside the file and Kafka ones.
import cluster from 'node:cluster';
import { createLifecycle } from '../../shared/lifecycle.ts';
import { SettingsError } from '../../shared/settings.ts';
import { createRatelimitLogger } from './adapters/logging.ts';
import { type RatelimitSettings, readRatelimitSettings } from './settings.ts';

let settings: RatelimitSettings;
try {
  settings = readRatelimitSettings(process.env);
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  process.stderr.write(`ratelimit: ${error.message}\n`);
  process.exit(2);
}

const workers = settings.ratelimitWorkers;
const role = workers <= 1 ? 'single' : cluster.isPrimary ? 'primary' : 'worker';
const baseLogger = createRatelimitLogger({ level: settings.logLevel, format: settings.logFormat });
const logger = role === 'worker' ? baseLogger.child({ worker: cluster.worker?.id }) : baseLogger;
const lifecycle = createLifecycle({ logger, deadlineMs: settings.shutdownDeadlineMs });
lifecycle.stopOnSignals();

try {
  // Imported on demand: a worker never loads the configuration source (nor Kafka).
  if (role === 'single') await (await import('./wiring/single.ts')).runSingle(settings, logger, lifecycle);
  else if (role === 'primary')
    await (await import('./wiring/primary.ts')).runPrimary(settings, logger, lifecycle, workers);
  else await (await import('./wiring/worker.ts')).runWorker(settings, logger, lifecycle);
} catch (error) {
  logger.fatal({ err: error }, 'rate limit service failed to start');
  await lifecycle.stop('start-up failure');
  process.exit(1);
}
