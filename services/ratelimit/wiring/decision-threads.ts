// The instance's decision threads (node:worker_threads, each a decision unit listening on the
// instance's ports): started with the configuration in force, handed every new one, asked for their
// stats, replaced when one dies, all drained on stop.
import { Worker } from 'node:worker_threads';
import type { ServingStatus } from '../../../shared/grpc.ts';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { moduleFile } from '../../../shared/module-file.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import type { UnitReport } from './decision-unit.ts';
import { type ConfigMessage, isFromThread, type ThreadStart, type ToThread } from './messages.ts';

const ENTRY = moduleFile(import.meta.url, '../decision-thread-main');
const ASK_TIMEOUT_MS = 2_000;
const REPLACE_FIRST_DELAY_MS = 250;
const REPLACE_MAX_DELAY_MS = 10_000;

export interface DecisionThreads {
  /**
   * Starts them; resolves once each is ready to listen (its counter store connected, the
   * configuration in force), rejects when one exits before.
   */
  start(): Promise<void>;
  /** Has every thread listen on the bound ports (as each one started later will); resolves once all do. */
  listen(ports: Ports): Promise<void>;
  /** Hands a configuration to every thread (and to each one started later). */
  apply(config: ConfigMessage): void;
  /** Sets a gRPC health status in every thread (and in each one started later). */
  setStatus(service: string, status: ServingStatus): void;
  /** Every listening thread's report; one that does not answer in time is left out. */
  reports(): Promise<UnitReport[]>;
}

type Ports = { readonly httpPort: number; readonly grpcPort: number };
type ThreadState = 'starting' | 'ready' | 'listening';

interface Thread {
  readonly unit: number;
  readonly worker: Worker;
  state: ThreadState;
}

export function createDecisionThreads(options: {
  count: number;
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
}): DecisionThreads {
  const { logger, settings } = options;
  const threads = new Set<Thread>();
  const waiting = new Map<number, (report: UnitReport) => void>();
  let nextUnit = 1;
  let nextQuestion = 0;
  let latest: ConfigMessage | undefined;
  const health = new Map<string, ServingStatus>();
  let ports: Ports | undefined;
  let stopping = false;
  let replaceDelayMs = REPLACE_FIRST_DELAY_MS;
  // While start() or listen() waits: every thread must reach `state`; one that exits fails it.
  let phase: { state: ThreadState; done: PromiseWithResolvers<void> } | undefined;

  const send = (thread: Thread, message: ToThread): void => thread.worker.postMessage(message);
  const reached = (thread: Thread, state: ThreadState): boolean =>
    thread.state === state || thread.state === 'listening';
  const checkPhase = (): void => {
    if (phase === undefined) return;
    const { state, done } = phase;
    if ([...threads].filter((t) => reached(t, state)).length < options.count) return;
    phase = undefined;
    done.resolve();
  };
  const waitFor = (state: ThreadState): Promise<void> => {
    const done = Promise.withResolvers<void>();
    phase = { state, done };
    checkPhase();
    return done.promise;
  };

  const spawn = (): void => {
    const unit = nextUnit++;
    const workerData: ThreadStart = { settings, unit, config: latest, health: [...health] };
    const thread: Thread = { unit, worker: new Worker(ENTRY, { workerData }), state: 'starting' };
    threads.add(thread);
    thread.worker.on('message', (message: unknown) => {
      if (!isFromThread(message)) return;
      if (message.rl === 'answer') {
        waiting.get(message.id)?.(message.report);
        return;
      }
      thread.state = message.rl;
      if (message.rl === 'listening') {
        replaceDelayMs = REPLACE_FIRST_DELAY_MS;
        logger.info({ decisionThread: unit, threadId: thread.worker.threadId }, 'decision thread listening');
      } else if (ports !== undefined) send(thread, { rl: 'listen', ...ports }); // a replacement
      checkPhase();
    });
    // A thread's uncaught error ends that thread only; it is logged, and the thread replaced.
    thread.worker.on('error', (error) =>
      logger.error({ decisionThread: unit, err: error }, 'decision thread failed'),
    );
    thread.worker.on('exit', (code) => {
      threads.delete(thread);
      if (stopping) return;
      if (phase !== undefined) {
        const failed = phase;
        phase = undefined;
        failed.done.reject(new Error(`decision thread ${unit} exited before it was ready (code ${code})`));
        return;
      }
      logger.error({ decisionThread: unit, code }, 'decision thread exited; starting another');
      // One that dies while it starts (its counter store unreachable, say) is retried more slowly.
      const delay = thread.state === 'listening' ? 0 : replaceDelayMs;
      if (thread.state !== 'listening') replaceDelayMs = Math.min(REPLACE_MAX_DELAY_MS, replaceDelayMs * 2);
      setTimeout(() => {
        if (!stopping) spawn();
      }, delay).unref();
    });
  };

  options.lifecycle.onStop('decision threads', async () => {
    stopping = true;
    const exits = [...threads].map((t) => new Promise<void>((done) => t.worker.once('exit', () => done())));
    for (const thread of threads) send(thread, { rl: 'stop' });
    await Promise.all(exits);
  });

  const reportOf = (thread: Thread): Promise<UnitReport | undefined> =>
    new Promise((answer) => {
      const id = nextQuestion++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        answer(undefined);
      }, ASK_TIMEOUT_MS);
      waiting.set(id, (report) => {
        clearTimeout(timer);
        waiting.delete(id);
        answer(report);
      });
      send(thread, { rl: 'ask', id });
    });

  return {
    start() {
      if (options.count === 0) return Promise.resolve();
      for (let i = 0; i < options.count; i++) spawn();
      return waitFor('ready');
    },
    listen(bound) {
      ports = bound;
      for (const thread of threads) if (thread.state === 'ready') send(thread, { rl: 'listen', ...bound });
      return waitFor('listening');
    },
    apply(config) {
      latest = config;
      for (const thread of threads) send(thread, config);
    },
    setStatus(service, status) {
      health.set(service, status);
      for (const thread of threads) send(thread, { rl: 'health', service, status });
    },
    async reports() {
      const listening = [...threads].filter((t) => t.state === 'listening');
      const answers = await Promise.all(listening.map(reportOf));
      return answers.filter((a) => a !== undefined);
    },
  };
}
