// The rate limit service's entry point: one process, RATELIMIT_WORKERS decision units (the main
// thread's and worker threads), see ./wiring/instance.ts.
import { boot } from './wiring/boot.ts';

// Imported once boot() has settled the process's options (it may start the process again first).
await boot(async (...args) => (await import('./wiring/instance.ts')).runInstance(...args));
