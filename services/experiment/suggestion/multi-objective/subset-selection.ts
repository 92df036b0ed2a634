// Hypervolume subset selection: choosing `count` vectors of one front whose hypervolume is as large
// as possible. Exact selection is NP-hard beyond two objectives; the greedy choice (each step the
// vector that adds the most volume to those already chosen) is within 1 − 1/e of the best
// (Guerreiro, Fonseca & Paquete 2016), and it is what Optuna's TPESampler uses to break the tie
// on the front where its good group ends. Pure and deterministic: ties go to the earlier vector.

import { hypervolume } from './hypervolume.ts';
import type { Losses } from './pareto.ts';

const EPSILON = 1e-12;

/**
 * The reference point of a front for selection: each objective's worst value moved 10% of its own
 * magnitude further out (max(1.1·w, 0.9·w), so a negative worst value moves out too), a worst value
 * of exactly 0 replaced by a small positive one. The same rule as Optuna's TPESampler.
 */
export function selectionReference(front: readonly Losses[]): number[] {
  return front[0]!.map((_, k) => {
    let worst = -Infinity;
    for (const v of front) worst = Math.max(worst, v[k]!);
    const reference = Math.max(1.1 * worst, 0.9 * worst);
    return reference === 0 ? EPSILON : reference;
  });
}

/**
 * Indices of `count` vectors of `front` (mutually non-dominated, as one Pareto rank is), chosen
 * greedily by hypervolume contribution against `reference`, in the order chosen. Equal vectors
 * add nothing after the first: each distinct vector is chosen before any repeat, and repeats, if
 * still needed, in input order. A reference that is not finite gives the first `count`.
 */
export function selectByHypervolume(front: readonly Losses[], count: number, reference: Losses): number[] {
  if (count >= front.length) return [...front.keys()];
  if (count <= 0) return [];
  if (!reference.every(Number.isFinite)) return [...front.keys()].slice(0, count);
  const firstOf = new Map<string, number>();
  const repeats: number[] = [];
  front.forEach((v, i) => {
    const key = v.join(',');
    if (firstOf.has(key)) repeats.push(i);
    else firstOf.set(key, i);
  });
  const distinct = [...firstOf.values()];
  if (distinct.length <= count) return [...distinct, ...repeats.slice(0, count - distinct.length)];
  const chosen =
    reference.length === 2
      ? greedyTwoObjectives(distinct.map((i) => front[i]!) as [number, number][], count, reference)
      : lazyGreedy(
          distinct.map((i) => front[i]!),
          count,
          reference,
        );
  return chosen.map((j) => distinct[j]!);
}

/**
 * Two objectives: on a front sorted by the first objective (so the second falls), a vector's
 * contribution is the box between it and a corner that only the chosen vectors next to it on
 * either side move in: the right neighbour lowers the corner's first coordinate, the left one its
 * second. Each step updates every corner once: O(count · N).
 */
function greedyTwoObjectives(front: readonly [number, number][], count: number, reference: Losses): number[] {
  const order = [...front.keys()].sort((a, b) => front[a]![0] - front[b]![0] || a - b);
  const corners = order.map(() => [reference[0]!, reference[1]!]);
  const open = order.map(() => true);
  const chosen: number[] = [];
  while (chosen.length < count) {
    let best = -1;
    let bestGain = -Infinity;
    for (let p = 0; p < order.length; p++) {
      if (!open[p]) continue;
      const [a, b] = front[order[p]!]!;
      const gain = (corners[p]![0]! - a) * (corners[p]![1]! - b);
      if (gain > bestGain || (gain === bestGain && order[p]! < order[best]!)) {
        bestGain = gain;
        best = p;
      }
    }
    open[best] = false;
    chosen.push(order[best]!);
    const [a, b] = front[order[best]!]!;
    for (let p = 0; p < best; p++) corners[p]![0] = Math.min(corners[p]![0]!, a);
    for (let p = best + 1; p < order.length; p++) corners[p]![1] = Math.min(corners[p]![1]!, b);
  }
  return chosen;
}

/**
 * Three objectives and more: a vector's contribution only shrinks as others are chosen
 * (hypervolume is submodular), so the last value computed for each is an upper bound. Each step
 * recomputes, best bound first, only until a fresh contribution beats every remaining bound
 * (Minoux's lazy greedy): usually a few hypervolumes per step instead of one per vector.
 */
function lazyGreedy(front: readonly Losses[], count: number, reference: Losses): number[] {
  const bound = front.map((v) => v.reduce((volume, value, k) => volume * (reference[k]! - value), 1));
  const fresh = front.map(() => true);
  const open = new Set(front.keys());
  const chosen: number[] = [];
  let chosenVolume = 0;
  while (chosen.length < count) {
    for (;;) {
      let top = -1;
      for (const i of open) if (top < 0 || bound[i]! > bound[top]!) top = i;
      if (fresh[top]) {
        open.delete(top);
        chosen.push(top);
        chosenVolume += bound[top]!;
        for (const i of open) fresh[i] = false;
        break;
      }
      bound[top] = hypervolume([...chosen.map((i) => front[i]!), front[top]!], reference) - chosenVolume;
      fresh[top] = true;
    }
  }
  return chosen;
}
