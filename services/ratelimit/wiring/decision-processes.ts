// The primary's decision processes: forked at start, replaced when one dies after it was ready,
// all drained on stop.
import cluster, { type Worker } from 'node:cluster';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { type DecisionProcessMessage, isDecisionProcessMessage, type PrimaryMessage } from './messages.ts';

export interface DecisionProcesses {
  /** Forks them; resolves once `count` are ready, rejects when one exits before it is ready. */
  start(): Promise<void>;
  /** The processes connected now. */
  connected(): Worker[];
  send(to: Worker, message: PrimaryMessage): void;
}

/** `count` processes of the entry cluster.setupPrimary named; `onMessage` gets what they say besides 'ready'. */
export function createDecisionProcesses(options: {
  count: number;
  env: Record<string, string>;
  logger: Logger;
  lifecycle: Lifecycle;
  onMessage: (from: Worker, message: Exclude<DecisionProcessMessage, { rl: 'ready' }>) => void;
}): DecisionProcesses {
  const { logger } = options;
  const all = new Set<Worker>();
  const ready = new Set<Worker>();
  let stopping = false;
  const { promise: started, resolve, reject } = Promise.withResolvers<void>();
  // Handled by whoever awaits it; a failure before that must not count as unhandled.
  started.catch(() => undefined);
  let starting = true;
  const send = (to: Worker, message: PrimaryMessage): void => {
    if (to.isConnected()) to.send(message);
  };

  const fork = (): void => {
    const child = cluster.fork(options.env);
    all.add(child);
    child.on('message', (message: unknown) => {
      if (!isDecisionProcessMessage(message)) return;
      if (message.rl !== 'ready') return options.onMessage(child, message);
      ready.add(child);
      logger.info({ decisionProcess: message.id, pid: child.process.pid }, 'decision process ready');
      if (starting && ready.size >= options.count) {
        starting = false;
        resolve();
      }
    });
    child.on('exit', (code, signal) => {
      all.delete(child);
      const wasReady = ready.delete(child);
      if (stopping) return;
      if (!wasReady) {
        reject(new Error(`a decision process exited before it was ready (code ${code}, signal ${signal})`));
        return;
      }
      logger.error({ pid: child.process.pid, code, signal }, 'decision process died; starting another');
      fork();
    });
  };

  options.lifecycle.onStop('decision processes', async () => {
    stopping = true;
    const exits = [...all].map(
      (child) => new Promise<void>((done) => (child.isDead() ? done() : child.once('exit', () => done()))),
    );
    for (const child of all) child.process.kill('SIGTERM');
    await Promise.all(exits);
  });
  return {
    start() {
      for (let forked = 0; forked < options.count; forked++) fork();
      return started;
    },
    connected: () => [...all].filter((child) => child.isConnected()),
    send,
  };
}
