// Where randomness comes from: the reply is a pure function of the request.
//
// The experiment seed is random_state when the settings give one, else a hash of the experiment
// name; sequence-like algorithms (grid order, Sobol scrambling, PBT names) use it alone, so their
// order holds for the whole experiment. A call's generator is seeded from the experiment seed and
// the number of trials in the request, so successive calls draw new points while the same request
// always gets the same reply.

import type { Seeds } from './algorithm.ts';

/** 32-bit FNV-1a of the UTF-16 code units. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export function deriveSeeds(options: {
  experimentName: string;
  randomState?: number;
  trialCount: number;
}): Seeds {
  const experiment =
    options.randomState === undefined
      ? fnv1a(`experiment:${options.experimentName}`)
      : fnv1a(`random_state:${options.randomState}`);
  return { experiment, call: fnv1a(`call:${experiment}:${options.trialCount}`) };
}
