// The suggestion threads: a pool of node:worker_threads for the suggestion use case. The calls of
// the algorithms that fit a model to every trial (bayesianoptimization: tens of milliseconds at 100
// trials) run there, one call per thread at a time, so the server's event loop keeps answering.
// Each thread runs the same pure function as the inline path; a request and its reply are
// copied across (structured clone, ~0.1 ms at 100 trials). A thread is a second V8 heap (~27 MiB
// RSS): threads start on the first call that needs one and stop after `idleMs` without work.
import { Worker } from 'node:worker_threads';
import type { GetSuggestionsRequest__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import { AppError, type ErrorCode, internal, unavailable } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { moduleFile } from '../../../../shared/module-file.ts';
import type { SuggestResult } from '../suggest.ts';

export interface ThreadRequest {
  readonly id: number;
  readonly request: GetSuggestionsRequest__Output;
}

export type ThreadReply =
  | { readonly id: number; readonly result: SuggestResult }
  | {
      readonly id: number;
      readonly error: { readonly code: ErrorCode; readonly message: string; readonly retriable: boolean };
    };

/** The algorithms whose calls go to the pool: they fit a model over every trial on each call. */
export const MODEL_FIT_ALGORITHMS: ReadonlySet<string> = new Set(['bayesianoptimization']);

export interface SuggestionThreads {
  run(request: GetSuggestionsRequest__Output): Promise<SuggestResult>;
  /** Threads running now (started on demand, stopped when idle). */
  threads(): number;
  close(): Promise<void>;
}

/** How long a thread without work lives before it is stopped. */
export const DEFAULT_IDLE_MS = 60_000;

interface Job {
  readonly id: number;
  readonly request: GetSuggestionsRequest__Output;
  resolve(result: SuggestResult): void;
  reject(error: Error): void;
  /** Resolves once the job is answered either way. */
  readonly settled: Promise<void>;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

const ENTRY = moduleFile(import.meta.url, './suggestion-thread');

export function createSuggestionThreads(options: {
  size: number;
  logger: Logger;
  idleMs?: number;
  /** The thread's entry module; tests point it elsewhere to make a thread fail. */
  entry?: string | URL;
}): SuggestionThreads {
  const logger = options.logger.child({ component: 'suggestion-threads' });
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const queue: Job[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;

  const retire = (slot: Slot): void => {
    slots.splice(slots.indexOf(slot), 1);
    void slot.worker.terminate();
  };

  const dispatch = (): void => {
    while (queue.length > slots.filter((slot) => !slot.job).length && slots.length < options.size) {
      slots.push(spawn());
    }
    for (const slot of slots) {
      if (slot.job || queue.length === 0) continue;
      const job = queue.shift()!;
      clearTimeout(slot.idleTimer);
      slot.idleTimer = undefined;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, request: job.request } satisfies ThreadRequest);
    }
    for (const slot of slots) {
      if (slot.job || slot.idleTimer) continue;
      // An idle thread, and its retirement timer, never keep the process alive on their own.
      slot.worker.unref();
      slot.idleTimer = setTimeout(() => retire(slot), idleMs).unref();
    }
  };

  const spawn = (): Slot => {
    const slot: Slot = { worker: new Worker(options.entry ?? ENTRY), job: undefined, idleTimer: undefined };
    slot.worker.on('message', (reply: ThreadReply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      slot.job = undefined;
      if ('result' in reply) job.resolve(reply.result);
      else
        job.reject(new AppError(reply.error.code, reply.error.message, { retriable: reply.error.retriable }));
      dispatch();
    });
    slot.worker.on('error', (error) => logger.error({ err: error }, 'suggestion thread failed'));
    slot.worker.on('exit', (code) => {
      clearTimeout(slot.idleTimer);
      const job = slot.job;
      slot.job = undefined;
      // Rejected even while closing: close() waits for every running job to settle. The text
      // callers see keeps the name of its setting, SUGGESTION_WORKER_THREADS.
      job?.reject(internal(`suggestion worker exited (code ${code}) while computing the reply`));
      if (closed || !slots.includes(slot)) return;
      logger.warn({ code }, 'suggestion thread exited; replaced when next needed');
      slots.splice(slots.indexOf(slot), 1);
      dispatch();
    });
    return slot;
  };

  return {
    run: (request) => {
      if (closed) return Promise.reject(unavailable('the suggestion service is stopping'));
      let resolve!: (result: SuggestResult) => void;
      let reject!: (error: Error) => void;
      const answer = new Promise<SuggestResult>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      const settled = answer.then(
        () => undefined,
        () => undefined,
      );
      queue.push({ id: nextId++, request, resolve, reject, settled });
      dispatch();
      return answer;
    },
    threads: () => slots.length,
    /** Calls not started are refused (UNAVAILABLE); the running ones finish first. */
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(unavailable('the suggestion service is stopping'));
      await Promise.all(slots.map((slot) => slot.job?.settled));
      for (const slot of slots) clearTimeout(slot.idleTimer);
      await Promise.all(slots.splice(0).map((slot) => slot.worker.terminate()));
    },
  };
}
