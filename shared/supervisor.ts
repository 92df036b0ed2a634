// Keeps long-lived components (consumer groups, topic followers) running: one that stops on an
// error is started again with backoff, reported as not running meanwhile (health, /metrics), and
// when it cannot be started again for long enough the process gives up so its own supervisor
// (systemd, Kubernetes) restarts it. Nothing stops silently.
import { setTimeout as sleep } from 'node:timers/promises';
import { Counter, Gauge, type Registry } from 'prom-client';
import { toAppError } from './errors.ts';
import type { Logger } from './logger.ts';

/** What a supervised component hands back once started. */
export interface Running {
  /** Rejects when the component stops on an error; resolves (or never settles) otherwise. */
  readonly ended: Promise<unknown>;
  stop(): Promise<void>;
}

export type ComponentState = 'running' | 'restarting' | 'stopped';

export interface ComponentStatus {
  readonly state: ComponentState;
  /** Why it is not running (the error it stopped on, or the last failed start). */
  readonly reason?: string;
  readonly restarts: number;
}

export interface Supervisor {
  /**
   * Starts the component and keeps it running. A first start that fails on a retriable error
   * (Kafka's coordinator still moving, a topic just created) is tried again with backoff like a
   * restart, the component reported as not running meanwhile; one that fails otherwise rejects (a
   * service that cannot start its parts should not start at all).
   */
  supervise(name: string, start: () => Promise<Running>): Promise<void>;
  /**
   * Runs a step of the start that is not a component (creating the topics, the producer): a
   * retriable failure is tried again with backoff, its reason logged once per change, until the
   * give-up time; then, or on any other failure, it rejects.
   */
  retryStep<T>(name: string, step: () => Promise<T>): Promise<T>;
  status(name: string): ComponentStatus | undefined;
  /** Called after every change of any component's state. */
  onChange(listener: (name: string, status: ComponentStatus) => void): () => void;
  /** Stops every component (later starts are not made). */
  stop(): Promise<void>;
}

export interface SupervisorOptions {
  readonly logger: Logger;
  readonly registry?: Registry;
  /** First wait before a restart, doubled at each failed one up to `maxDelayMs`. Default 250. */
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
  /** How long a component may stay down before the process gives up. Default 120000. */
  readonly giveUpAfterMs?: number;
  /** Called once when a component could not be restarted in time (the wiring stops and exits 1). */
  readonly onGiveUp: (name: string, reason: string) => void;
}

export function createSupervisor(options: SupervisorOptions): Supervisor {
  const { logger } = options;
  const initialDelayMs = options.initialDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  const giveUpAfterMs = options.giveUpAfterMs ?? 120_000;
  const statuses = new Map<string, ComponentStatus>();
  const runningNow = new Map<string, Running>();
  const listeners = new Set<(name: string, status: ComponentStatus) => void>();
  const stopped = new AbortController();
  let gaveUp = false;

  const registers = options.registry ? [options.registry] : [];
  const up = new Gauge({
    name: 'component_running',
    help: 'Whether a long-lived component (consumer, topic follower) runs: 1, or 0 while it is restarted',
    labelNames: ['component'],
    registers,
  });
  const restarts = new Counter({
    name: 'component_restarts_total',
    help: 'Restarts of a long-lived component after it stopped on an error',
    labelNames: ['component'],
    registers,
  });

  function set(name: string, status: ComponentStatus): void {
    statuses.set(name, status);
    up.set({ component: name }, status.state === 'running' ? 1 : 0);
    for (const listener of listeners) listener(name, status);
  }

  const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

  function watch(name: string, running: Running, start: () => Promise<Running>): void {
    runningNow.set(name, running);
    running.ended.then(
      () => undefined,
      (error: unknown) => {
        if (stopped.signal.aborted || runningNow.get(name) !== running) return;
        runningNow.delete(name);
        logger.error({ component: name, err: error }, 'component stopped on an error; restarting it');
        void restart(name, start, message(error));
      },
    );
  }

  /** `restarts` counts a start after a stop; the retries of a first start are not restarts. */
  async function restart(
    name: string,
    start: () => Promise<Running>,
    firstReason: string,
    counted = true,
  ): Promise<void> {
    const downSince = Date.now();
    let reason = firstReason;
    let count = statuses.get(name)?.restarts ?? 0;
    for (let attempt = 0; !stopped.signal.aborted; attempt++) {
      set(name, { state: 'restarting', reason, restarts: count });
      if (Date.now() - downSince >= giveUpAfterMs) {
        if (!gaveUp) {
          gaveUp = true;
          logger.fatal(
            { component: name, reason },
            `component could not be restarted within ${giveUpAfterMs} ms`,
          );
          options.onGiveUp(name, reason);
        }
        return;
      }
      try {
        await sleep(Math.min(maxDelayMs, initialDelayMs * 2 ** attempt), undefined, {
          signal: stopped.signal,
        });
      } catch {
        return;
      }
      try {
        const running = await start();
        if (stopped.signal.aborted) {
          await running.stop();
          return;
        }
        if (counted) {
          count += 1;
          restarts.inc({ component: name });
        }
        set(name, { state: 'running', restarts: count });
        logger.info({ component: name, restarts: count, attempts: attempt + 1 }, 'component running again');
        watch(name, running, start);
        return;
      } catch (error) {
        const next = message(error);
        // Once per change: a broker that answers the same for a minute is one line, not a hundred.
        if (next !== reason)
          logger.warn({ component: name, err: error, attempt: attempt + 1 }, 'component start failed');
        reason = next;
      }
    }
  }

  return {
    async supervise(name, start) {
      let running: Running;
      try {
        running = await start();
      } catch (error) {
        if (!toAppError(error).retriable) throw error;
        logger.warn({ component: name, err: error }, 'component could not start yet; trying again');
        void restart(name, start, message(error), false);
        return;
      }
      set(name, { state: 'running', restarts: 0 });
      watch(name, running, start);
    },
    async retryStep(name, step) {
      const since = Date.now();
      let reason: string | undefined;
      for (let attempt = 0; ; attempt++) {
        try {
          return await step();
        } catch (error) {
          const failure = toAppError(error);
          if (!failure.retriable || stopped.signal.aborted || Date.now() - since >= giveUpAfterMs)
            throw error;
          if (failure.message !== reason)
            logger.warn({ step: name, err: error, attempt: attempt + 1 }, `${name}: not yet; trying again`);
          reason = failure.message;
        }
        await sleep(Math.min(maxDelayMs, initialDelayMs * 2 ** attempt));
      }
    },
    status: (name) => statuses.get(name),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      stopped.abort();
      const all = [...runningNow.entries()];
      runningNow.clear();
      await Promise.all(
        all.map(async ([name, running]) => {
          await running.stop();
          set(name, { state: 'stopped', restarts: statuses.get(name)?.restarts ?? 0 });
        }),
      );
    },
  };
}
