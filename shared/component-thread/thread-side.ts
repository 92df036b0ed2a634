// The thread side of a component thread: starts the component, tells its parent when it runs, when
// it failed (then the thread ends) and, every second, its counters and gauges; on `stop` it closes
// what the component opened, in reverse order.
import { type MessagePort, parentPort } from 'node:worker_threads';
import { Counter, Gauge, type Registry } from 'prom-client';
import { toAppError } from '../errors.ts';
import type { ComponentMessage, CounterDelta, GaugeValue, ToComponentThread } from './protocol.ts';

const METRICS_EVERY_MS = 1_000;

export interface ComponentThreadSide<M extends { kind: string }> {
  /** Sends a message of the component's own to the parent. */
  tell(message: M | ComponentMessage): void;
  /** Closed on stop or failure, last added first. */
  onClose(close: () => Promise<unknown>): void;
}

/** Runs the component `start` returns until the parent asks it to stop or it ends on an error. */
export async function runComponentThread<M extends { kind: string }>(options: {
  registry: Registry;
  start: (side: ComponentThreadSide<M>) => Promise<{ readonly ended: Promise<unknown> }>;
}): Promise<void> {
  const port: MessagePort = parentPort!;
  const tell = (message: M | ComponentMessage): void => port.postMessage(message);
  const closing: Array<() => Promise<unknown>> = [];
  const closeAll = async (): Promise<void> => {
    for (const close of closing.splice(0).reverse()) await close().catch(() => undefined);
  };
  const sent = new Map<string, number>();
  const reportMetrics = async (): Promise<void> => {
    const { deltas, gauges } = await metricsSince(options.registry, sent);
    if (deltas.length > 0) tell({ kind: 'counters', deltas });
    if (gauges.length > 0) tell({ kind: 'gauges', values: gauges });
  };
  const timer = setInterval(() => void reportMetrics().catch(() => undefined), METRICS_EVERY_MS);
  // Ends once: a failure met while a requested stop closes the component is that stop's doing.
  let ending: Promise<void> | undefined;
  const end = (failure?: unknown): Promise<void> => {
    ending ??= finish(failure);
    return ending;
  };
  const finish = async (failure?: unknown): Promise<void> => {
    clearInterval(timer);
    if (failure === undefined) {
      // What the component counted while it finished its work is reported too.
      await closeAll();
      await reportMetrics().catch(() => undefined);
      tell({ kind: 'stopped' });
    } else {
      await reportMetrics().catch(() => undefined);
      const error = toAppError(failure);
      tell({
        kind: 'failed',
        message: error.message,
        code: error.code,
        retriable: error.retriable,
        stack: (failure as Error).stack,
      });
      await closeAll();
    }
    port.close();
  };
  try {
    const component = await options.start({ tell, onClose: (close) => closing.push(close) });
    tell({ kind: 'started' });
    port.on('message', (message: ToComponentThread) => {
      if (message.kind === 'stop') void end();
    });
    component.ended.catch((error: unknown) => end(error ?? new Error('ended')));
  } catch (error) {
    await end(error);
  }
}

/** Counter increases since the values in `sent` (updated), and every gauge's values now. */
async function metricsSince(
  registry: Registry,
  sent: Map<string, number>,
): Promise<{ deltas: CounterDelta[]; gauges: GaugeValue[] }> {
  const deltas: CounterDelta[] = [];
  const gauges: GaugeValue[] = [];
  for (const metric of registry.getMetricsAsArray()) {
    if (!(metric instanceof Counter) && !(metric instanceof Gauge)) continue;
    const { name, help, values } = await metric.get();
    for (const { labels, value } of values) {
      const at = { name, help, labels: labels as Record<string, string> };
      if (metric instanceof Gauge) {
        gauges.push({ ...at, value });
        continue;
      }
      const key = `${name}${JSON.stringify(labels)}`;
      const delta = value - (sent.get(key) ?? 0);
      if (delta === 0) continue;
      sent.set(key, value);
      deltas.push({ ...at, delta });
    }
  }
  return { deltas, gauges };
}
