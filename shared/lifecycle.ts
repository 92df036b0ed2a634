import type { Logger } from './logger.ts';

export interface Lifecycle {
  /** Registers something to stop; stops run in reverse order of registration. */
  onStop(name: string, stop: () => Promise<void> | void): void;
  /** Stops everything once (later calls return the same promise); resolves true if all stopped in time. */
  stop(reason: string): Promise<boolean>;
  /** Stops on SIGTERM or SIGINT, then exits: 0 when everything stopped within the deadline, 1 otherwise. */
  stopOnSignals(exit?: (code: number) => void): void;
}

export function createLifecycle(options: { logger: Logger; deadlineMs: number }): Lifecycle {
  const { logger, deadlineMs } = options;
  const stops: Array<{ name: string; stop: () => Promise<void> | void }> = [];
  let stopping: Promise<boolean> | undefined;

  async function stopAll(reason: string): Promise<boolean> {
    logger.info({ reason }, 'stopping');
    let clean = true;
    const deadline = Date.now() + deadlineMs;
    for (const { name, stop } of [...stops].reverse()) {
      const left = deadline - Date.now();
      if (left <= 0) {
        logger.error({ component: name }, 'stop deadline passed before this component was stopped');
        clean = false;
        continue;
      }
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), left);
      });
      try {
        const outcome = await Promise.race([Promise.resolve().then(stop), timedOut]);
        if (outcome === 'timeout') {
          logger.error({ component: name, deadlineMs }, 'component did not stop before the deadline');
          clean = false;
        }
      } catch (error) {
        logger.error({ component: name, err: error }, 'component failed to stop');
        clean = false;
      } finally {
        clearTimeout(timer);
      }
    }
    logger.info({ clean }, 'stopped');
    return clean;
  }

  const lifecycle: Lifecycle = {
    onStop(name, stop) {
      stops.push({ name, stop });
    },
    stop(reason) {
      stopping ??= stopAll(reason);
      return stopping;
    },
    stopOnSignals(exit = (code) => process.exit(code)) {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.once(signal, () => {
          void lifecycle.stop(signal).then((clean) => exit(clean ? 0 : 1));
        });
      }
    },
  };
  return lifecycle;
}
