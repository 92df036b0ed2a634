// What the service does first: read the settings (exit 2 naming every bad one), start itself again
// with its node options when it was started without, make the logger and the lifecycle
// (SIGTERM/SIGINT stop it), run `start`, and exit 1 if it fails.
import { createLifecycle, type Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { SettingsError } from '../../../shared/settings.ts';
import { createRatelimitLogger } from '../adapters/telemetry/logging.ts';
import { type RatelimitSettings, readRatelimitSettings } from '../settings/index.ts';
import { restartWith } from './process-options.ts';

export async function boot(
  start: (settings: RatelimitSettings, logger: Logger, lifecycle: Lifecycle) => Promise<void>,
  bindings: Record<string, unknown> = {},
): Promise<void> {
  let settings: RatelimitSettings;
  try {
    settings = readRatelimitSettings(process.env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`ratelimit: ${error.message}\n`);
    process.exit(2);
  }
  const again = restartWith(settings.instanceNodeOptions, process);
  if (again !== undefined && process.execve !== undefined)
    process.execve(process.execPath, [process.execPath, ...again.args], again.env);
  const base = createRatelimitLogger({ level: settings.logLevel, format: settings.logFormat });
  const logger = Object.keys(bindings).length > 0 ? base.child(bindings) : base;
  const lifecycle = createLifecycle({ logger, deadlineMs: settings.shutdownDeadlineMs });
  lifecycle.stopOnSignals();
  try {
    await start(settings, logger, lifecycle);
  } catch (error) {
    logger.fatal({ err: error }, 'rate limit service failed to start');
    await lifecycle.stop('start-up failure');
    process.exit(1);
  }
}
