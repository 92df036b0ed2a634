import type { Logger } from './logger.ts';
import type { HealthService } from './rpc/health.ts';
import type { Supervisor } from './supervisor.ts';

export interface DependencyCheck {
  readonly name: string;
  /** Resolves when the dependency answers; rejects otherwise. */
  check(): Promise<void>;
  /** The health names it matters to (besides the server as a whole, ''); default: every one. */
  readonly services?: readonly string[];
}

/**
 * Keeps each health status SERVING only while the dependencies it needs answer: checks now, then
 * every `intervalMs` and at once whenever one of `changes` fires. Returns a stop function.
 */
export async function watchDependencies(options: {
  health: Pick<HealthService, 'setStatus'>;
  services: readonly string[];
  checks: readonly DependencyCheck[];
  intervalMs: number;
  timeoutMs: number;
  logger: Logger;
  /** Subscriptions to events that may change a check's answer (Kafka lost, a consumer restarting). */
  changes?: ReadonlyArray<(listener: () => void) => () => void>;
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
    for (const service of services) {
      const needs = (check: DependencyCheck) =>
        check.services === undefined ||
        service === '' ||
        service === 'grpc.health.v1.Health' ||
        check.services.includes(service);
      const ok = checks.every((check) => !now.has(check.name) || !needs(check));
      health.setStatus(service, ok ? 'SERVING' : 'NOT_SERVING');
    }
  }

  await probe();
  let running = false;
  let again = false;
  const probeNow = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void probe().finally(() => {
      running = false;
      if (again) {
        again = false;
        probeNow();
      }
    });
  };
  const timer = setInterval(probeNow, intervalMs);
  const unsubscribe = (options.changes ?? []).map((subscribe) => subscribe(probeNow));
  return () => {
    clearInterval(timer);
    for (const stop of unsubscribe) stop();
  };
}

/** A check per supervised component: failing while it is being restarted, with the reason. */
export function componentChecks(
  supervisor: Supervisor,
  components: ReadonlyArray<{ readonly name: string; readonly services?: readonly string[] }>,
): DependencyCheck[] {
  return components.map(({ name, services }) => ({
    name,
    ...(services ? { services } : {}),
    check: async () => {
      const status = supervisor.status(name);
      if (status !== undefined && status.state !== 'running')
        throw new Error(`${name} is ${status.state}${status.reason ? `: ${status.reason}` : ''}`);
    },
  }));
}
