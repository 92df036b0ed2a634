// NSGA-II's crossovers on encoded points (../models/tpe-core.ts: unit coordinates for numeric
// parameters, on the log scale for LOG_* ones; choice indices for categorical ones). A categorical
// parameter always takes one parent's choice (uniform crossover): an index has no order to blend.
// Published definitions: SBX (Deb & Agrawal 1995, bounded form of Deb & Beyer 2001), BLX-α
// (Eshelman & Schaffer 1993), uniform (Syswerda 1989); SPX and UNDX, which take three parents and
// the numeric coordinates as one vector, in ./nsga2-vector-crossover.ts.

import type { Encoded } from '../models/parzen.ts';
import type { Axis } from '../models/unit-space.ts';
import type { Rng } from '../rng.ts';
import type { Nsga2Crossover } from '../settings/nsga2.ts';
import { simplexCrossover, unimodalNormalCrossover } from './nsga2-vector-crossover.ts';

export interface CrossoverOptions {
  readonly kind: Nsga2Crossover;
  /** Per parameter, the chance of taking the second parent's (uniform) or second child's (sbx) value. */
  readonly swappingProb: number;
  /** SBX distribution index: small spreads children far from the parents. */
  readonly sbxEta: number;
}

/** BLX-α's α: children range over the parents' interval widened by half its length each side. */
const BLX_ALPHA = 0.5;
/** Draws of a blend that leaves the unit cube before the child is clipped into it. */
const MAX_BLEND_DRAWS = 16;

/** One child of PARENTS_PER_CROSSOVER[kind] parents. */
export function crossover(
  axes: readonly Axis[],
  parents: readonly Encoded[],
  options: CrossoverOptions,
  rng: Rng,
): number[] {
  const [first, second] = parents as [Encoded, Encoded];
  const child: number[] = [];
  for (let d = 0; d < axes.length; d++) {
    const a = first[d]!;
    const b = second[d]!;
    if (axes[d]!.kind === 'categorical' || options.kind === 'uniform') {
      child.push(rng.next() < options.swappingProb ? b : a);
    } else if (options.kind === 'sbx') {
      child.push(simulatedBinary(a, b, options, rng));
    } else if (options.kind === 'blxalpha') {
      child.push(blend(a, b, rng));
    } else child.push(a);
  }
  if (options.kind !== 'spx' && options.kind !== 'undx') return child;
  const numeric = [...axes.keys()].filter((d) => axes[d]!.kind !== 'categorical');
  if (numeric.length === 0) return child;
  const vectors = parents.map((p) => numeric.map((d) => p[d]!));
  const blended =
    options.kind === 'spx' ? simplexCrossover(vectors, rng) : unimodalNormalCrossover(vectors, rng);
  numeric.forEach((d, k) => {
    child[d] = blended[k]!;
  });
  return child;
}

/**
 * Bounded SBX on [0, 1]: with probability ½ the parameter is crossed (else the child keeps a
 * parent's value), the spread factor drawn so that children near the bounds stay inside them;
 * of the two children one is kept, the second with probability swappingProb.
 */
function simulatedBinary(a: number, b: number, options: CrossoverOptions, rng: Rng): number {
  const takeSecond = rng.next() < options.swappingProb;
  if (rng.next() >= 0.5 || Math.abs(a - b) < 1e-14) return takeSecond ? b : a;
  const low = Math.min(a, b);
  const high = Math.max(a, b);
  const eta = options.sbxEta;
  const u = rng.next();
  const spread = (distanceToBound: number): number => {
    const beta = 1 + (2 * distanceToBound) / (high - low);
    const alpha = 2 - beta ** -(eta + 1);
    return u <= 1 / alpha ? (u * alpha) ** (1 / (eta + 1)) : (1 / (2 - u * alpha)) ** (1 / (eta + 1));
  };
  const lowerChild = 0.5 * (low + high - spread(low) * (high - low));
  const upperChild = 0.5 * (low + high + spread(1 - high) * (high - low));
  return clamp01(takeSecond ? upperChild : lowerChild);
}

function blend(a: number, b: number, rng: Rng): number {
  const low = Math.min(a, b);
  const width = Math.abs(a - b);
  let value = low;
  for (let draw = 0; draw < MAX_BLEND_DRAWS; draw++) {
    value = low - BLX_ALPHA * width + rng.next() * (1 + 2 * BLX_ALPHA) * width;
    if (value >= 0 && value <= 1) return value;
  }
  return clamp01(value);
}

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));
