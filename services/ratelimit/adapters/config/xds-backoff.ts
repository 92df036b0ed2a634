// When the xDS client opens its stream again: CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL until
// the server first answered, then the XDS_CLIENT_BACKOFF_* backoff, as the reference computes them.

export interface BackoffSettings {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  readonly jitter: boolean;
}

/** jpillora/backoff `ForAttempt`: min·factor^attempt, jittered between min and that, clamped to [min, max]. */
export function backoffDelayMs(attempt: number, b: BackoffSettings, random: () => number): number {
  const min = b.initialMs > 0 ? b.initialMs : 100;
  const max = b.maxMs > 0 ? b.maxMs : 10_000;
  if (min >= max) return max;
  const factor = b.factor > 0 ? b.factor : 2;
  let delay = min * factor ** attempt;
  if (b.jitter) delay = random() * (delay - min) + min;
  if (!Number.isFinite(delay) || delay > max) return max;
  return Math.max(min, Math.floor(delay));
}

/** go-grpc-middleware's BackoffLinearWithJitter(interval, 0.5): interval ± 50%. */
export function connectRetryDelayMs(intervalMs: number, random: () => number): number {
  return Math.max(0, Math.round(intervalMs * (1 + 0.5 * (random() * 2 - 1))));
}
