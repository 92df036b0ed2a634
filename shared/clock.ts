/** Time as milliseconds since the Unix epoch; injected so domain code and tests control it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
