// Parameter importance by fANOVA (Hutter, Hoos & Leyton-Brown 2014) on a random forest, with the
// forest Optuna's default FanovaImportanceEvaluator fits: 64 trees, max_depth 64,
// min_samples_split 2, min_samples_leaf 1, every feature at every split, a bootstrap sample per
// tree, seeded. For each tree the share of the variance of its prediction, over the whole search
// space, that one parameter explains alone (the variance of the tree's marginal in that
// parameter, computed exactly from the leaves' boxes), averaged over the trees; the importances
// are then normalised to sum to 1. Pure and synchronous: no clock, the seed given.
//
// Bounded in time: each tree is grown on a bootstrap sample of at most MAX_SAMPLES_PER_TREE trials
// (drawn from all of them), so 10,000 trials cost the reading of 10,000 points plus a fixed
// amount of growing. Search space as the samplers see it (../models/unit-space.ts): numeric
// parameters on the unit interval, on the log scale for LOG_*; a categorical parameter is its
// choice index, each choice an interval of width 1 (Optuna one-hot encodes it instead; the
// marginal still weighs every choice equally).

import { axesOf } from '../models/unit-space.ts';
import { createRng } from '../rng.ts';
import type { Dimension, Point } from '../space.ts';
import { fitRegressionTree, type TreeNode, type TreeOptions } from './regression-tree.ts';

export const FANOVA_DEFAULTS = Object.freeze({
  nTrees: 64,
  maxDepth: 64,
  minSamplesSplit: 2,
  minSamplesLeaf: 1,
  seed: 0,
});

/** Bootstrap sample size per tree beyond which trials are subsampled (sklearn's max_samples). */
export const MAX_SAMPLES_PER_TREE = 2_000;

export interface ImportanceTrial {
  readonly point: Point;
  /** The objective (its direction does not matter: variance is the same either way). */
  readonly value: number;
}

export interface FanovaOptions extends TreeOptions {
  readonly nTrees: number;
  readonly seed: number;
}

export interface ParameterImportance {
  readonly name: string;
  readonly importance: number;
}

/**
 * Importance of every parameter, in dimension order, summing to 1; all 0 when the trials' objective
 * never varies (no parameter explains anything). Needs at least two trials.
 */
export function fanovaImportances(
  dimensions: readonly Dimension[],
  trials: readonly ImportanceTrial[],
  options: Partial<FanovaOptions> = {},
): ParameterImportance[] {
  const settings: FanovaOptions = { ...FANOVA_DEFAULTS, ...options };
  if (trials.length < 2) throw new RangeError(`fANOVA needs at least 2 trials, got ${trials.length}`);
  const { columns, bounds } = encode(dimensions, trials);
  const targets = Float64Array.from(trials, (t) => t.value);
  const rng = createRng(settings.seed);
  const sampleSize = Math.min(trials.length, MAX_SAMPLES_PER_TREE);
  const shares = new Float64Array(dimensions.length);
  let counted = 0;
  for (let t = 0; t < settings.nTrees; t++) {
    const sample = new Int32Array(sampleSize);
    for (let k = 0; k < sampleSize; k++) sample[k] = rng.int(trials.length);
    const tree = fitRegressionTree(columns, targets, sample, settings);
    const variances = marginalVariances(tree, bounds);
    // A tree that predicts one value everywhere has no variance to share out.
    if (variances.total <= 0) continue;
    counted++;
    for (let d = 0; d < dimensions.length; d++) shares[d]! += variances.single[d]! / variances.total;
  }
  const sum = shares.reduce((a, b) => a + b, 0);
  return dimensions.map((dimension, d) => ({
    name: dimension.name,
    importance: counted === 0 || sum <= 0 ? 0 : shares[d]! / sum,
  }));
}

type Bounds = readonly (readonly [number, number])[];

function encode(
  dimensions: readonly Dimension[],
  trials: readonly ImportanceTrial[],
): { columns: Float64Array[]; bounds: Bounds } {
  const axes = axesOf(dimensions);
  const columns = axes.map((axis, d) =>
    Float64Array.from(trials, (trial) => {
      const value = trial.point[d]!;
      if (axis.kind === 'categorical') return axis.choices.indexOf(String(value));
      return Math.min(1, Math.max(0, axis.toUnit(Number(value))));
    }),
  );
  const bounds = axes.map((axis): [number, number] =>
    axis.kind === 'categorical' ? [-0.5, axis.choices.length - 0.5] : [0, 1],
  );
  return { columns, bounds };
}

interface Leaf {
  readonly low: Float64Array;
  readonly high: Float64Array;
  readonly value: number;
}

/**
 * The variance of the tree's prediction under the uniform measure on the search space (`total`)
 * and, per feature, the variance of its marginal in that feature (`single`). The leaves partition
 * the space into boxes, so the marginal in feature d is piecewise constant between the thresholds
 * on d: on each piece, the sum over the leaves that cover it of value × the leaf's share of the
 * other features' volume.
 */
export function marginalVariances(
  tree: readonly TreeNode[],
  bounds: Bounds,
): { total: number; single: number[] } {
  const leaves = leafBoxes(tree, bounds);
  const dims = bounds.length;
  const widths = bounds.map(([low, high]) => high - low);
  const shares = leaves.map((leaf) => {
    const perFeature = widths.map((width, d) => (leaf.high[d]! - leaf.low[d]!) / width);
    return { perFeature, volume: perFeature.reduce((a, b) => a * b, 1) };
  });
  let mean = 0;
  leaves.forEach((leaf, l) => {
    mean += leaf.value * shares[l]!.volume;
  });
  let total = 0;
  leaves.forEach((leaf, l) => {
    total += shares[l]!.volume * (leaf.value - mean) ** 2;
  });
  const single: number[] = [];
  for (let d = 0; d < dims; d++) {
    const cuts = [...new Set(leaves.flatMap((leaf) => [leaf.low[d]!, leaf.high[d]!]))].sort((a, b) => a - b);
    const piece = new Map(cuts.map((cut, k) => [cut, k]));
    // Difference array over the pieces: each leaf adds its weighted value on the pieces it spans.
    const step = new Float64Array(cuts.length);
    leaves.forEach((leaf, l) => {
      const { perFeature, volume } = shares[l]!;
      const otherVolume = perFeature[d]! > 0 ? volume / perFeature[d]! : 0;
      step[piece.get(leaf.low[d]!)!]! += leaf.value * otherVolume;
      step[piece.get(leaf.high[d]!)!]! -= leaf.value * otherVolume;
    });
    let marginal = 0;
    let variance = 0;
    for (let k = 0; k + 1 < cuts.length; k++) {
      marginal += step[k]!;
      variance += ((cuts[k + 1]! - cuts[k]!) / widths[d]!) * (marginal - mean) ** 2;
    }
    single.push(variance);
  }
  return { total, single };
}

function leafBoxes(tree: readonly TreeNode[], bounds: Bounds): Leaf[] {
  const leaves: Leaf[] = [];
  const visit = (at: number, low: Float64Array, high: Float64Array) => {
    const node = tree[at]!;
    if (node.feature < 0) {
      leaves.push({ low, high, value: node.value });
      return;
    }
    const leftHigh = high.slice();
    leftHigh[node.feature] = node.threshold;
    const rightLow = low.slice();
    rightLow[node.feature] = node.threshold;
    visit(node.left, low, leftHigh);
    visit(node.right, rightLow, high);
  };
  visit(
    0,
    Float64Array.from(bounds, (b) => b[0]),
    Float64Array.from(bounds, (b) => b[1]),
  );
  return leaves;
}
