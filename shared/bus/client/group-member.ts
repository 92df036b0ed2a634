// What both client implementations need for a consumer group member, independent of the library.

/** The heartbeat for a session timeout: at most a third of it, and no longer than 3 s. */
export const heartbeatIntervalFor = (sessionTimeoutMs: number): number =>
  Math.min(3_000, Math.floor(sessionTimeoutMs / 3));

/** The `joined` and `failed` promises of a GroupConsumer, with the functions that settle them. */
export function memberOutcome(): {
  joined: Promise<void>;
  markJoined: () => void;
  failed: Promise<never>;
  markFailed: (error: unknown) => void;
} {
  let markJoined: () => void = () => {};
  const joined = new Promise<void>((resolve) => {
    markJoined = resolve;
  });
  let markFailed: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    markFailed = reject;
  });
  failed.catch(() => undefined); // observed by whoever awaits it; never an unhandled rejection
  return { joined, markJoined, failed, markFailed };
}
