// A worker thread of the in-process mode: runs the loops it is sent, one at a time.
import { parentPort } from 'node:worker_threads';
import { runLoop } from './driver.ts';
import { ALL_PROBLEMS } from './problems.ts';
import { inProcessTransport } from './transports.ts';

export interface Job {
  readonly algorithm: string;
  readonly problem: string;
  readonly seed: number;
  readonly trials: number;
  readonly batch: number;
}

parentPort!.on('message', async (job: Job) => {
  try {
    const problem = ALL_PROBLEMS.find((p) => p.name === job.problem)!;
    const result = await runLoop(inProcessTransport, job.algorithm, problem, job.seed, job.trials, job.batch);
    // The median of three calls with every trial completed, so that one GC pause does not count.
    const samples: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await inProcessTransport(result.finalRequest);
      samples.push((performance.now() - started) / result.finalRequest.current_request_number);
    }
    const ms = samples.sort((a, b) => a - b)[1];
    parentPort!.postMessage({ job, regrets: result.regrets, ms });
  } catch (error) {
    parentPort!.postMessage({ job, error: (error as Error).message });
  }
});
