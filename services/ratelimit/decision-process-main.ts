// A decision process's entry point (forked by the primary through node:cluster). Imported outside
// a cluster worker it only loads its modules: the primary does that once in a throwaway process so
// that the compile cache holds them and the decision processes skip TypeScript stripping (~17 MB each).
import cluster from 'node:cluster';
import { boot } from './wiring/boot.ts';
import { runDecisionProcess } from './wiring/decision-process.ts';

if (cluster.isWorker) await boot(runDecisionProcess, { decisionProcess: cluster.worker?.id });
