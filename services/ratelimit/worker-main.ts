// A decision worker's entry point (forked by the primary through node:cluster). Imported outside a
// cluster worker it only loads its modules: the primary does that once in a throwaway process so
// that the compile cache holds them and the workers skip TypeScript stripping (~17 MB each).
import cluster from 'node:cluster';
import { boot } from './wiring/boot.ts';
import { runWorker } from './wiring/worker.ts';

if (cluster.isWorker) await boot(runWorker, { worker: cluster.worker?.id });
