/**
 * Node options the experiment service runs with (`npm start`, the test and bench servers; add them
 * to `node` when running it yourself). V8 grows the young generation to 64 MiB per semi-space under
 * the allocation rate of ingest and catch-up, and the process keeps it: capped at 8 MiB, a server
 * catching up on the topics held ~375 MiB RSS instead of ~590 MiB. The flag cannot be set from
 * inside the process once the heap exists.
 */
export const EXPERIMENT_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=8'];
