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
 * The fronts, best first, as indices into `vectors` (each front in index order): front 0 is the
 * non-dominated set, front r the vectors dominated only by those of fronts below r. Equal vectors
 * share a front. Efficient non-dominated sort with binary search (ENS-BS, Zhang et al. 2015):
 * in lexicographic order a vector can only be dominated by one before it, so each joins the first
 * front none of whose members dominates it, found by binary search (a front that dominates it
 * means every front before does too). With two objectives only a front's last member needs
 * checking (it has the front's lowest second loss): O(N log N), 10,000 trials in milliseconds;
 * with more, a front's members are checked last first, O(M·N²) at worst (one front).
 */
export function nonDominatedFronts(vectors: readonly Losses[]): number[][] {
  const order = [...vectors.keys()].sort((a, b) => {
    const u = vectors[a]!;
    const v = vectors[b]!;
    for (let k = 0; k < u.length; k++) if (u[k] !== v[k]) return u[k]! - v[k]!;
    return a - b;
  });
  const fronts: number[][] = [];
  const twoObjectives = vectors[0]?.length === 2;
  const dominatedWithin = (front: readonly number[], i: number): boolean => {
    const v = vectors[i]!;
    if (twoObjectives) return dominates(vectors[front[front.length - 1]!]!, v);
    for (let k = front.length - 1; k >= 0; k--) if (dominates(vectors[front[k]!]!, v)) return true;
    return false;
  };
  for (const i of order) {
    let low = 0;
    let high = fronts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (dominatedWithin(fronts[middle]!, i)) low = middle + 1;
      else high = middle;
    }
    if (low === fronts.length) fronts.push([i]);
    else fronts[low]!.push(i);
  }
  for (const front of fronts) front.sort((a, b) => a - b);
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
