// NSGA-II's generations, rebuilt from the request on every call (the service keeps no state).
// The completed trials that report every objective, in the order they completed, form the
// generations (completion_time, as Katib's controller sets it; trials without one after the others,
// in request order: Katib's controller lists trials from the Kubernetes API, which promises no
// order):
// the first population_size of them generation 0, the next population_size generation 1, and so
// on; the trials after the last full generation belong to the one being filled. The parents of the
// next children are the elite of the previous parents and the last full generation, as in
// NSGA-II's (μ + λ) selection: whole fronts by Pareto rank, then the last front that does not fit
// by crowding distance, ties broken at random with a generator seeded by the experiment and the
// generation, so every call agrees on every generation's parents.

import type { TrialRecord } from '../katib-space.ts';
import type { ScoredTrial } from '../multi-objective/objectives.ts';
import { crowdingDistances, nonDominatedFronts } from '../multi-objective/pareto.ts';
import { createRng, type Rng } from '../rng.ts';
import { fnv1a } from '../seeds.ts';

/**
 * The scored trials by completion time: a trial that completes later always joins the end, so the
 * generations already full never change from one call to the next. Same-format RFC 3339 times
 * (Katib's) order as text, as hyperband's start times do.
 */
export function inCompletionOrder(
  scored: readonly ScoredTrial[],
  records: readonly TrialRecord[],
): ScoredTrial[] {
  const time = (t: ScoredTrial) => records[t.index]!.completionTime || '\uffff';
  return [...scored].sort((a, b) => {
    const at = time(a);
    const bt = time(b);
    return at < bt ? -1 : at > bt ? 1 : a.index - b.index;
  });
}

/** The parent population for the generation being filled; empty while generation 0 is (it is random). */
export function parentPopulation(
  scored: readonly ScoredTrial[],
  populationSize: number,
  experimentSeed: number,
): ScoredTrial[] {
  let parents: ScoredTrial[] = [];
  const fullGenerations = Math.floor(scored.length / populationSize);
  for (let g = 0; g < fullGenerations; g++) {
    const generation = scored.slice(g * populationSize, (g + 1) * populationSize);
    const rng = createRng(fnv1a(`nsga2-elite:${experimentSeed}:${g}`));
    parents = selectElite([...parents, ...generation], populationSize, rng);
  }
  return parents;
}

/** The best `size` of `population`: by Pareto rank, then by crowding distance within the last front. */
export function selectElite(population: readonly ScoredTrial[], size: number, rng: Rng): ScoredTrial[] {
  const elite: ScoredTrial[] = [];
  for (const front of nonDominatedFronts(population.map((t) => t.losses))) {
    if (elite.length + front.length <= size) {
      for (const i of front) elite.push(population[i]!);
      if (elite.length === size) break;
      continue;
    }
    const members = shuffle(
      front.map((i) => population[i]!),
      rng,
    );
    const distances = crowdingDistances(members.map((t) => t.losses));
    const order = [...members.keys()].sort((a, b) => distances[b]! - distances[a]! || a - b);
    for (const i of order.slice(0, size - elite.length)) elite.push(members[i]!);
    break;
  }
  return elite;
}

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
