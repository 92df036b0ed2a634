// A component (a consumer, a judge) on a thread of its own (node:worker_threads), seen from the
// thread that starts it as one supervised component: started when the thread says its component
// runs, ended (rejected) when the thread reports a failure, throws or exits unasked, stopped by
// asking the thread to finish its work and close (terminated when it does not within the deadline).
// The thread's counters and gauges appear on this thread's registry.
import { Worker } from 'node:worker_threads';
import { Counter, Gauge, type Registry } from 'prom-client';
import { AppError, unavailable } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Running } from '../supervisor.ts';
import type { ComponentMessage, CounterDelta, GaugeValue, ToComponentThread } from './protocol.ts';

export interface ComponentThreadOptions<M extends { kind: string }> {
  /** Names the thread and its errors ("<name> thread: …"). */
  readonly name: string;
  /** The thread's entry module (it calls runComponentThread). */
  readonly entry: string | URL;
  readonly workerData: unknown;
  readonly logger: Logger;
  readonly registry?: Registry;
  /** The component's own messages. */
  readonly onMessage?: (message: M) => void;
  /** How long `stop` waits for the thread to finish its work and close. Default 15000. */
  readonly stopDeadlineMs?: number;
}

export function startComponentThread<M extends { kind: string }>(
  options: ComponentThreadOptions<M>,
): Promise<Running> {
  const { name } = options;
  const logger = options.logger.child({ component: `${name}-thread` });
  const worker = new Worker(options.entry, { workerData: options.workerData, name });
  let stopping = false;
  let failed = false;
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  let settleStart: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const started = new Promise<void>((resolve, reject) => {
    settleStart = { resolve, reject };
  });
  let endWith: (error: Error) => void = () => undefined;
  const ended = new Promise<never>((_, reject) => {
    endWith = reject;
  });
  ended.catch(() => undefined);
  const fail = (error: Error): void => {
    if (!failed) {
      // The thread closes its connections and ends by itself; one that lingers is ended here.
      const linger = setTimeout(() => void worker.terminate(), 5_000);
      linger.unref();
      void exited.then(() => clearTimeout(linger));
    }
    failed = true;
    settleStart?.reject(error);
    settleStart = undefined;
    endWith(error);
  };

  worker.on('message', (message: ComponentMessage | M) => {
    const common = message as ComponentMessage;
    switch (common.kind) {
      case 'started':
        settleStart?.resolve();
        settleStart = undefined;
        return;
      case 'failed':
        return fail(
          new AppError(common.code, `${name} thread: ${common.message}`, { retriable: common.retriable }),
        );
      case 'counters':
      case 'gauges':
        if (options.registry) forward(options.registry, common);
        return;
      case 'stopped':
        return;
      default:
        options.onMessage?.(message as M);
    }
  });
  // A metric that clashes with one of this thread's (another type, other labels) is not forwarded.
  const forwardedGauges = new Set<string>();
  const forward = (registry: Registry, message: ComponentMessage): void => {
    try {
      if (message.kind === 'counters') addCounters(registry, message.deltas);
      else if (message.kind === 'gauges') {
        setGauges(registry, message.values);
        for (const { name: gauge } of message.values) forwardedGauges.add(gauge);
      }
    } catch (error) {
      logger.warn({ err: error }, `${name} thread: a metric could not be forwarded`);
    }
  };
  // A gauge says what is now: once the thread is gone, what it said is not.
  void exited.then(() => {
    for (const gauge of forwardedGauges) options.registry?.getSingleMetric(gauge)?.reset();
  });
  worker.on('error', (error) => {
    logger.error({ err: error }, `${name} thread failed`);
    fail(error);
  });
  void exited.then((code) => {
    if (!stopping) fail(unavailable(`${name} thread exited (code ${code})`));
  });

  const running: Running = {
    ended,
    async stop() {
      if (stopping) return void (await exited);
      stopping = true;
      // A thread that failed has no work to finish.
      if (failed) await worker.terminate();
      else worker.postMessage({ kind: 'stop' } satisfies ToComponentThread);
      const deadline = setTimeout(() => {
        logger.warn(`${name} thread did not stop in time; terminating it`);
        void worker.terminate();
      }, options.stopDeadlineMs ?? 15_000);
      await exited;
      clearTimeout(deadline);
    },
  };
  return started.then(
    () => running,
    async (error: unknown) => {
      stopping = true;
      await worker.terminate();
      throw error;
    },
  );
}

/** Adds the thread's counter increases to the same counters here (created on first sight). */
function addCounters(registry: Registry, deltas: readonly CounterDelta[]): void {
  for (const { name, help, labels, delta } of deltas) {
    const counter =
      (registry.getSingleMetric(name) as Counter | undefined) ??
      new Counter({ name, help, labelNames: Object.keys(labels), registers: [registry] });
    counter.inc(labels, delta);
  }
}

/** Sets the same gauges here to the thread's values (created on first sight). */
function setGauges(registry: Registry, values: readonly GaugeValue[]): void {
  for (const { name, help, labels, value } of values) {
    const gauge =
      (registry.getSingleMetric(name) as Gauge | undefined) ??
      new Gauge({ name, help, labelNames: Object.keys(labels), registers: [registry] });
    gauge.set(labels, value);
  }
}
