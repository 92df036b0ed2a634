// A decision thread's entry point (started by the main thread, ./wiring/decision-threads.ts).
import { workerData } from 'node:worker_threads';
import { runDecisionThread } from './wiring/decision-thread.ts';
import type { ThreadStart } from './wiring/messages.ts';

await runDecisionThread(workerData as ThreadStart);
