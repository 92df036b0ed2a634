// Hypervolume: the volume of the region dominated by a set of loss vectors (every objective
// minimised) and bounded by a reference point. Exact in every dimension: one objective is a
// length, two a sweep over the staircase (O(N log N)), three and more slice the last objective at
// every vector's value and add slab × the hypervolume of the vectors below it in one dimension
// fewer (HSO, While et al. 2006): O(N · F log F) for three objectives (F the size of the front),
// exponential in the number of objectives beyond, which is what every exact method costs.

import { dominates, type Losses } from './pareto.ts';

/**
 * The hypervolume of `vectors` against `reference`. A vector that is not strictly better than the
 * reference in every objective adds nothing (it bounds no box), as in every tool that reports it.
 */
export function hypervolume(vectors: readonly Losses[], reference: Losses): number {
  for (const v of vectors)
    if (v.length !== reference.length)
      throw new RangeError(`a vector has ${v.length} objectives, the reference point ${reference.length}`);
  const inside = vectors.filter((v) => v.every((value, k) => value < reference[k]!));
  return volume(nonDominated(inside), reference);
}

function volume(vectors: readonly Losses[], reference: Losses): number {
  if (vectors.length === 0) return 0;
  const d = reference.length;
  if (d === 1) return reference[0]! - vectors.reduce((low, v) => Math.min(low, v[0]!), Infinity);
  if (d === 2) return staircase(vectors, reference);
  // Slabs between consecutive values of the last objective; each slab sees the vectors at or below it.
  const sorted = [...vectors].sort((a, b) => a[d - 1]! - b[d - 1]!);
  const lower = reference.slice(0, d - 1);
  let total = 0;
  // The projections of the vectors below the slab, kept non-dominated as each one joins.
  const projected: Losses[] = [];
  for (let i = 0; i < sorted.length; i++) {
    addNonDominated(projected, sorted[i]!.slice(0, d - 1));
    const top = i + 1 < sorted.length ? sorted[i + 1]![d - 1]! : reference[d - 1]!;
    const thickness = top - sorted[i]![d - 1]!;
    if (thickness > 0) total += thickness * volume(projected, lower);
  }
  return total;
}

/** Two objectives: sorted by the first, each vector adds the strip between it and the next. */
function staircase(vectors: readonly Losses[], reference: Losses): number {
  const sorted = [...vectors].sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let area = 0;
  let lowestSecond = reference[1]!;
  for (const [first, second] of sorted as [number, number][]) {
    if (second >= lowestSecond) continue;
    area += (reference[0]! - first) * (lowestSecond - second);
    lowestSecond = second;
  }
  return area;
}

/** The vectors no other one dominates, duplicates kept once. */
function nonDominated(vectors: readonly Losses[]): Losses[] {
  const kept: Losses[] = [];
  for (const v of vectors) addNonDominated(kept, v);
  return kept;
}

/** Adds v to a non-dominated set unless one of its vectors dominates or equals it; drops those v dominates. */
function addNonDominated(kept: Losses[], v: Losses): void {
  if (kept.some((k) => dominates(k, v) || k.every((value, i) => value === v[i]))) return;
  let write = 0;
  for (let read = 0; read < kept.length; read++) if (!dominates(v, kept[read]!)) kept[write++] = kept[read]!;
  kept.length = write;
  kept.push(v);
}

/** How far past the worst vector the default reference point lies, as a share of each range. */
export const REFERENCE_MARGIN = 0.1;

/**
 * The reference point used when none is given: the nadir (worst value of each objective among the
 * vectors) plus 10% of that objective's range, as Optuna's and pymoo's plots choose it, so every
 * vector of the front adds volume, the extremes included. An objective whose values are all equal
 * gets 10% of its magnitude, at least 1. Only comparable between sets that share the reference:
 * pass one explicitly to compare two runs.
 */
export function defaultReferencePoint(vectors: readonly Losses[]): number[] {
  if (vectors.length === 0) throw new RangeError('no vectors to take a reference point from');
  return vectors[0]!.map((_, k) => {
    // A loop rather than Math.max(...values): a spread of a very large front overflows the stack.
    let worst = -Infinity;
    let best = Infinity;
    for (const v of vectors) {
      worst = Math.max(worst, v[k]!);
      best = Math.min(best, v[k]!);
    }
    const range = worst - best;
    const margin = range > 0 ? range * REFERENCE_MARGIN : Math.max(Math.abs(worst) * REFERENCE_MARGIN, 1);
    return worst + margin;
  });
}
