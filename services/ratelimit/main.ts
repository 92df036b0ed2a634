// The rate limit service's entry point: one process doing everything (RATELIMIT_WORKERS=1), or the
// primary of that many decision processes (node:cluster, ./decision-process-main.ts).
import { boot } from './wiring/boot.ts';

await boot(async (settings, logger, lifecycle) => {
  // Imported on demand: one process never loads what only the other needs.
  if (settings.decisionProcesses <= 1)
    await (await import('./wiring/single.ts')).runSingle(settings, logger, lifecycle);
  else
    await (await import('./wiring/primary.ts')).runPrimary(
      settings,
      logger,
      lifecycle,
      settings.decisionProcesses,
    );
});
