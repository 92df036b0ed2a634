// Pareto order on loss vectors (every objective minimised; a MAXIMIZE objective arrives negated):
// the rank of every vector by non-dominated sorting (Deb et al. 2002, NSGA-II) and the crowding
// distance that orders vectors within one front.

export type Losses = readonly number[];

/** a dominates b: no worse in every objective and better in at least one. */
export function dominates(a: Losses, b: Losses): boolean {
  let better = false;
  for (let k = 0; k < a.length; k++) {
    if (a[k]! > b[k]!) return false;
    if (a[k]! < b[k]!) better = true;
  }
  return better;
}

/**
 * The fronts, best first, as indices into `vectors`: front 0 is the non-dominated set, front r the
 * vectors dominated only by those of fronts below r. Equal vectors share a front. O(M·N²).
 */
export function nonDominatedFronts(vectors: readonly Losses[]): number[][] {
  const n = vectors.length;
  const dominatedBy: number[][] = Array.from({ length: n }, () => []);
  const dominatorCount = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (dominates(vectors[i]!, vectors[j]!)) {
        dominatedBy[i]!.push(j);
        dominatorCount[j]!++;
      } else if (dominates(vectors[j]!, vectors[i]!)) {
        dominatedBy[j]!.push(i);
        dominatorCount[i]!++;
      }
    }
  }
  const fronts: number[][] = [];
  let current = [...dominatorCount.keys()].filter((i) => dominatorCount[i] === 0);
  while (current.length > 0) {
    fronts.push(current);
    const next: number[] = [];
    for (const i of current) {
      for (const j of dominatedBy[i]!) if (--dominatorCount[j]! === 0) next.push(j);
    }
    current = next.sort((a, b) => a - b);
  }
  return fronts;
}

/** The Pareto rank of every vector (0 = non-dominated), in input order. */
export function paretoRanks(vectors: readonly Losses[]): number[] {
  const ranks = new Array<number>(vectors.length).fill(0);
  nonDominatedFronts(vectors).forEach((front, rank) => {
    for (const i of front) ranks[i] = rank;
  });
  return ranks;
}

/** Indices of the non-dominated vectors, in input order. */
export function paretoFront(vectors: readonly Losses[]): number[] {
  return nonDominatedFronts(vectors)[0] ?? [];
}

/**
 * Crowding distance of each vector of one front (same order as `front`): the sum over objectives
 * of the gap between its two neighbours, divided by that objective's range on the front. The two
 * extremes of every objective get Infinity, so the edges of the front always survive selection;
 * an objective with no range adds nothing.
 */
export function crowdingDistances(front: readonly Losses[]): number[] {
  const n = front.length;
  const distances = new Array<number>(n).fill(0);
  if (n === 0) return distances;
  const objectives = front[0]!.length;
  for (let k = 0; k < objectives; k++) {
    const order = [...front.keys()].sort((a, b) => front[a]![k]! - front[b]![k]! || a - b);
    const low = front[order[0]!]![k]!;
    const high = front[order[n - 1]!]![k]!;
    distances[order[0]!] = Infinity;
    distances[order[n - 1]!] = Infinity;
    if (high === low) continue;
    for (let i = 1; i < n - 1; i++) {
      const gap = front[order[i + 1]!]![k]! - front[order[i - 1]!]![k]!;
      distances[order[i]!]! += gap / (high - low);
    }
  }
  return distances;
}

/**
 * The best fronts, as nonDominatedFronts gives them, but only until they hold at least `needed`
 * vectors, and without its N² table of who dominates whom (10,000 trials would need tens of
 * millions of entries). Peels fronts off the vectors in lexicographic order: there a vector can
 * only be dominated by one before it, so each pass compares a vector with the front it is building.
 * O(M·N·F) per front. Indices within a front in input order.
 */
export function leadingFronts(vectors: readonly Losses[], needed: number): number[][] {
  let remaining = [...vectors.keys()].sort((a, b) => compareLexicographic(vectors[a]!, vectors[b]!) || a - b);
  const fronts: number[][] = [];
  let taken = 0;
  while (remaining.length > 0 && taken < needed) {
    const front: number[] = [];
    const rest: number[] = [];
    for (const i of remaining) {
      if (front.some((j) => dominates(vectors[j]!, vectors[i]!))) rest.push(i);
      else front.push(i);
    }
    fronts.push(front.sort((a, b) => a - b));
    taken += front.length;
    remaining = rest;
  }
  return fronts;
}

function compareLexicographic(a: Losses, b: Losses): number {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k]! - b[k]!;
  return 0;
}
