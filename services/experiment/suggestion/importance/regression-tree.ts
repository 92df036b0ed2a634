// A CART regression tree (Breiman et al. 1984) as a random forest grows it for fANOVA: every
// feature considered at every node, the split that most reduces the squared error, thresholds
// half-way between neighbouring distinct values, grown until max_depth, min_samples_split or
// min_samples_leaf stops it or a node's targets are all equal. Each feature's samples are sorted
// once and kept sorted through the splits (stable partition), so growing costs O(features ×
// samples × depth) rather than a sort at every node.

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
  const sorted = columns.map((column) => sample.slice().sort((a, b) => column[a]! - column[b]!));
  grow(sorted, 0);
  return nodes;

  function grow(byFeature: Int32Array[], depth: number): number {
    const at = nodes.length;
    const members = byFeature[0]!;
    const m = members.length;
    let sum = 0;
    let sumSquares = 0;
    for (let k = 0; k < m; k++) {
      const y = targets[members[k]!]!;
      sum += y;
      sumSquares += y * y;
    }
    const mean = sum / m;
    const leaf: TreeNode = { feature: -1, threshold: 0, left: -1, right: -1, value: mean };
    nodes.push(leaf);
    // Relative to the targets' scale: rounding leaves a tiny error on a node of equal targets.
    const constant = sumSquares - sum * mean <= 1e-12 * Math.max(1, sumSquares);
    if (depth >= options.maxDepth || m < options.minSamplesSplit || constant) return at;
    const split = bestSplit(byFeature, sum);
    if (split === undefined) return at;
    const column = columns[split.feature]!;
    const goesLeft = (i: number) => column[i]! <= split.threshold;
    const lefts: Int32Array[] = [];
    const rights: Int32Array[] = [];
    for (const list of byFeature) {
      const left = new Int32Array(split.leftCount);
      const right = new Int32Array(m - split.leftCount);
      let l = 0;
      let r = 0;
      for (let k = 0; k < m; k++) {
        const i = list[k]!;
        if (goesLeft(i)) left[l++] = i;
        else right[r++] = i;
      }
      lefts.push(left);
      rights.push(right);
    }
    const left = grow(lefts, depth + 1);
    const right = grow(rights, depth + 1);
    nodes[at] = { feature: split.feature, threshold: split.threshold, left, right, value: mean };
    return at;
  }

  /** The split with the least squared error: the largest Σ(left)²/n_left + Σ(right)²/n_right. */
  function bestSplit(
    byFeature: Int32Array[],
    sum: number,
  ): { feature: number; threshold: number; leftCount: number } | undefined {
    const m = byFeature[0]!.length;
    const minLeaf = options.minSamplesLeaf;
    let best: { feature: number; threshold: number; leftCount: number } | undefined;
    let bestScore = -Infinity;
    for (let f = 0; f < byFeature.length; f++) {
      const list = byFeature[f]!;
      const column = columns[f]!;
      let leftSum = 0;
      for (let k = 0; k < m - 1; k++) {
        leftSum += targets[list[k]!]!;
        const here = column[list[k]!]!;
        const next = column[list[k + 1]!]!;
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
