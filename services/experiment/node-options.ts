/**
 * Node options the experiment service runs with (`npm start`, the test and bench servers; add them
 * to `node` when running it yourself). Under ingest V8 grows the young generation to 64 MiB per
 * semi-space and the old generation far past what is live (15-60 MiB), and the process keeps what it
 * grew. Measured with `npm run bench:dbmanager` (SQLite, 50 reporters, built service, two rounds):
 * Node's defaults held ~590 MiB; `--max-semi-space-size=8` 201-217 MiB at 44k logs/s; with a 4 MiB
 * semi-space and the old generation let grow 10% past its live size, 140-141 MiB at 40k logs/s
 * (-9%), and 152-158 MiB instead of 217-233 MiB after the load. Memory is the cost that matters
 * here. The flags cannot be set from inside the process once the heap exists.
 */
export const EXPERIMENT_NODE_OPTIONS: readonly string[] = [
  '--max-semi-space-size=4',
  '--heap-growing-percent=10',
];
