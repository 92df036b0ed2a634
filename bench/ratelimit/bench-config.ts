// The configuration the rate limit benchmarks decide against: one limit no caller reaches, so
// every decision counts and answers OK.
export const BENCH_CONFIG = `domain: bench
descriptors:
  - key: user
    rate_limit:
      unit: minute
      requests_per_unit: 1000000000
`;
