// The rate limit service's entry point: one process, RATELIMIT_WORKERS decision units (the main
// thread's and worker threads), see ./wiring/instance.ts.
import { boot } from './wiring/boot.ts';
import { runInstance } from './wiring/instance.ts';

await boot(runInstance);
