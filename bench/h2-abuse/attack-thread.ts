// The attacks run on a thread of their own, started once for the run: the bench's legitimate
// health checks on the main thread are then delayed by the server, not by the writing loops. The
// main thread is told when a pattern's time is up (to read the server's CPU and stop the legitimate
// client then), and gets the outcome once the pattern's connections are closed.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { type AttackJob, type AttackOutcome, runAttack } from './attack.ts';

type FromThread = { type: 'ready' } | { type: 'time-up' } | { type: 'outcome'; outcome: AttackOutcome };

export interface AttackThread {
  /** Runs one pattern; `onTimeUp` runs (and is awaited) when its time is up. */
  run(job: AttackJob, onTimeUp: () => Promise<void>): Promise<AttackOutcome>;
  close(): Promise<void>;
}

export async function startAttackThread(): Promise<AttackThread> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { h2AbuseAttacker: true } });
  let failed: ((error: Error) => void) | undefined;
  worker.on('error', (error) => failed?.(error));
  worker.on('exit', (code) => failed?.(new Error(`the attack thread exited with ${code}`)));
  await new Promise<void>((resolve, reject) => {
    failed = reject;
    worker.once('message', () => resolve());
  });
  return {
    run(job, onTimeUp) {
      return new Promise<AttackOutcome>((resolve, reject) => {
        failed = reject;
        let timeUp: Promise<void> = Promise.resolve();
        const listener = (message: FromThread): void => {
          if (message.type === 'time-up') timeUp = onTimeUp();
          if (message.type !== 'outcome') return;
          worker.off('message', listener);
          timeUp.then(() => resolve(message.outcome), reject);
        };
        worker.on('message', listener);
        worker.postMessage(job);
      });
    },
    async close() {
      failed = undefined;
      await worker.terminate();
    },
  };
}

if (!isMainThread && workerData?.h2AbuseAttacker === true) {
  const port = parentPort!;
  const post = (message: FromThread): void => port.postMessage(message);
  // Buffers arrive as Uint8Array through the thread boundary.
  const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  port.on('message', async (job: AttackJob) => {
    const target = {
      ...job.target,
      block: asBuffer(job.target.block),
      message: asBuffer(job.target.message),
    };
    const outcome = await runAttack({ ...job, target }, () => post({ type: 'time-up' }));
    post({ type: 'outcome', outcome });
  });
  post({ type: 'ready' });
}
