// REDIS_PIPELINE_WINDOW / REDIS_PIPELINE_LIMIT: the increments of many decisions in one pipeline.
import type { CounterIncrement } from '../../ports.ts';

/**
 * Queues the increments of concurrent decisions and sends them as one pipeline after `windowMs`
 * (below 1 ms: at the end of the current turn of the event loop) or once `limit` commands wait.
 */
export function createImplicitPipeline(
  exec: (items: readonly CounterIncrement[]) => Promise<number[]>,
  windowMs: number,
  limit: number,
): (items: readonly CounterIncrement[]) => Promise<number[]> {
  interface Waiting {
    readonly items: readonly CounterIncrement[];
    readonly resolve: (counts: number[]) => void;
    readonly reject: (error: unknown) => void;
  }
  let queue: Waiting[] = [];
  let queuedCommands = 0;
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;

  const flush = (): void => {
    if (timer !== undefined) {
      if (windowMs >= 1) clearTimeout(timer as NodeJS.Timeout);
      else clearImmediate(timer as NodeJS.Immediate);
      timer = undefined;
    }
    const batch = queue;
    queue = [];
    queuedCommands = 0;
    if (batch.length === 0) return;
    const all = batch.length === 1 ? batch[0]!.items : batch.flatMap((w) => w.items);
    exec(all).then(
      (counts) => {
        let at = 0;
        for (const waiting of batch) {
          waiting.resolve(counts.slice(at, at + waiting.items.length));
          at += waiting.items.length;
        }
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  };

  return (items) =>
    new Promise<number[]>((resolve, reject) => {
      queue.push({ items, resolve, reject });
      queuedCommands += 2 * items.length;
      if (limit > 0 && queuedCommands >= limit) flush();
      else if (timer === undefined) timer = windowMs >= 1 ? setTimeout(flush, windowMs) : setImmediate(flush);
    });
}
