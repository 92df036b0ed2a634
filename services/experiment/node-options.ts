/**
 * Node options the experiment service runs with (`npm start`, the test and bench servers; add them
 * when running `node` yourself): a small young generation and a slowly grown old one keep its
 * memory near what is live under ingest (figures in the README). They cannot be set from inside.
 */
export const EXPERIMENT_NODE_OPTIONS: readonly string[] = [
  '--max-semi-space-size=4',
  '--heap-growing-percent=10',
];
