import type { HealthService } from './grpc-health.ts';
import type { Logger } from './logger.ts';

export interface DependencyCheck {
  readonly name: string;
  /** Resolves when the dependency answers; rejects otherwise. */
  check(): Promise<void>;
}

/**
 * Keeps the health service's statuses SERVING only while every dependency answers: checks now,
 * then every `intervalMs`. Returns a stop function.
 */
export async function watchDependencies(options: {
  health: HealthService;
  services: readonly string[];
  checks: readonly DependencyCheck[];
  intervalMs: number;
  timeoutMs: number;
  logger: Logger;
}): Promise<() => void> {
  const { health, services, checks, intervalMs, timeoutMs, logger } = options;
  let failing = new Set<string>();

  const withTimeout = (check: DependencyCheck): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      check.check().then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });

  async function probe(): Promise<void> {
    const results = await Promise.allSettled(checks.map(withTimeout));
    const now = new Set<string>();
    results.forEach((result, i) => {
      const name = checks[i]!.name;
      if (result.status === 'rejected') {
        now.add(name);
        if (!failing.has(name))
          logger.error({ dependency: name, err: result.reason }, 'dependency stopped answering');
      } else if (failing.has(name)) {
        logger.info({ dependency: name }, 'dependency answers again');
      }
    });
    failing = now;
    for (const service of services) health.setStatus(service, now.size === 0 ? 'SERVING' : 'NOT_SERVING');
  }

  await probe();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void probe().finally(() => {
      running = false;
    });
  }, intervalMs);
  return () => clearInterval(timer);
}
