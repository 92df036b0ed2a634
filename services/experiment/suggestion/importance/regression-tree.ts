// A CART regression tree (Breiman et al. 1984) as a random forest grows it for fANOVA: every
// feature considered at every node, the split that most reduces the squared error, thresholds
// half-way between neighbouring distinct values, grown until max_depth, min_samples_split or
// min_samples_leaf stops it or a node's targets are all equal. Each feature's samples are sorted
// once and kept sorted through the splits (a stable partition in place), so growing costs
// O(features × samples × depth) rather than a sort at every node, and allocates no list per node.

export interface TreeOptions {
  readonly maxDepth: number;
  readonly minSamplesSplit: number;
  readonly minSamplesLeaf: number;
}

/** A node of the flat tree: a leaf has feature -1 and its mean target as value. */
export interface TreeNode {
  readonly feature: number;
  readonly threshold: number;
  readonly left: number;
  readonly right: number;
  readonly value: number;
}

/**
 * Grows a tree on `sample` (indices into the columns; an index may repeat, as in a bootstrap).
 * `columns[f][i]` is feature f of trial i; `targets[i]` its objective.
 */
export function fitRegressionTree(
  columns: readonly Float64Array[],
  targets: Float64Array,
  sample: Int32Array,
  options: TreeOptions,
): TreeNode[] {
  const nodes: TreeNode[] = [];
  const m = sample.length;
  // Per feature, the sample in that feature's order; a node owns one range [start, end) of every
  // list, partitioned in place (stably, through `scratch`) when it splits: no list per node.
  const byFeature = columns.map((column) => sample.slice().sort((a, b) => column[a]! - column[b]!));
  const scratch = new Int32Array(m);
  grow(0, m, 0);
  return nodes;

  function grow(start: number, end: number, depth: number): number {
    const at = nodes.length;
    const members = byFeature[0]!;
    const count = end - start;
    let sum = 0;
    let sumSquares = 0;
    for (let k = start; k < end; k++) {
      const y = targets[members[k]!]!;
      sum += y;
      sumSquares += y * y;
    }
    const mean = sum / count;
    const leaf: TreeNode = { feature: -1, threshold: 0, left: -1, right: -1, value: mean };
    nodes.push(leaf);
    // Relative to the targets' scale: rounding leaves a tiny error on a node of equal targets.
    const constant = sumSquares - sum * mean <= 1e-12 * Math.max(1, sumSquares);
    if (depth >= options.maxDepth || count < options.minSamplesSplit || constant) return at;
    const split = bestSplit(start, end, sum);
    if (split === undefined) return at;
    const column = columns[split.feature]!;
    const middle = start + split.leftCount;
    for (const list of byFeature) {
      let l = start;
      let r = 0;
      for (let k = start; k < end; k++) {
        const i = list[k]!;
        if (column[i]! <= split.threshold) list[l++] = i;
        else scratch[r++] = i;
      }
      list.set(scratch.subarray(0, r), middle);
    }
    const left = grow(start, middle, depth + 1);
    const right = grow(middle, end, depth + 1);
    nodes[at] = { feature: split.feature, threshold: split.threshold, left, right, value: mean };
    return at;
  }

  /** The split with the least squared error: the largest Σ(left)²/n_left + Σ(right)²/n_right. */
  function bestSplit(
    start: number,
    end: number,
    sum: number,
  ): { feature: number; threshold: number; leftCount: number } | undefined {
    const m = end - start;
    const minLeaf = options.minSamplesLeaf;
    let best: { feature: number; threshold: number; leftCount: number } | undefined;
    let bestScore = -Infinity;
    for (let f = 0; f < byFeature.length; f++) {
      const list = byFeature[f]!;
      const column = columns[f]!;
      let leftSum = 0;
      for (let k = 0; k < m - 1; k++) {
        leftSum += targets[list[start + k]!]!;
        const here = column[list[start + k]!]!;
        const next = column[list[start + k + 1]!]!;
        const leftCount = k + 1;
        if (here === next || leftCount < minLeaf || m - leftCount < minLeaf) continue;
        const rightSum = sum - leftSum;
        const score = (leftSum * leftSum) / leftCount + (rightSum * rightSum) / (m - leftCount);
        if (score > bestScore) {
          bestScore = score;
          // Half-way, unless the two are neighbouring doubles and half-way rounds up to `next`.
          const middle = (here + next) / 2;
          best = { feature: f, threshold: middle < next ? middle : here, leftCount };
        }
      }
    }
    return best;
  }
}
