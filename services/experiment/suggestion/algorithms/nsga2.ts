// nsga2: NSGA-II (Deb et al. 2002) with the semantics and settings of Optuna's NSGAIISampler, for
// one objective or several (the `objectives` setting, ../multi-objective/objectives.ts). While the
// first generation fills, points are drawn at random; after, each child comes from parents chosen
// by binary tournament (of two random parents, one that dominates the other wins), crossed with
// probability crossover_prob (else a random parent is copied), then each parameter is redrawn
// at random with probability mutation_prob (default 1 / number of parameters). Running trials
// only keep the batch distinct: NSGA-II has no model for them to inform.

import type { Algorithm } from '../algorithm.ts';
import { toAssignments } from '../katib-space.ts';
import { decodePoint, encodePoint } from '../models/tpe-core.ts';
import { type Axis, axesOf, collectDistinct, drawUnit, randomPoint } from '../models/unit-space.ts';
import { resolveObjectives, type ScoredTrial, scoreTrials } from '../multi-objective/objectives.ts';
import { dominates } from '../multi-objective/pareto.ts';
import { createRng, type Rng } from '../rng.ts';
import { type Nsga2Settings, PARENTS_PER_CROSSOVER, readNsga2Settings } from '../settings/nsga2.ts';
import type { Point } from '../space.ts';
import { type CrossoverOptions, crossover } from './nsga2-crossover.ts';
import { inCompletionOrder, parentPopulation } from './nsga2-generations.ts';

/** SBX's distribution index as Optuna's documentation gives it: 2 for one objective, 20 for several. */
const sbxEta = (objectives: number): number => (objectives > 1 ? 20 : 2);

export const nsga2: Algorithm<Nsga2Settings> = {
  readSettings: readNsga2Settings,
  checkExperiment(experiment, config) {
    resolveObjectives(config.objectives, experiment.objective);
  },
  suggest({ experiment, config, trials, count, seeds }) {
    const { dimensions } = experiment;
    const objectives = resolveObjectives(config.objectives, experiment.objective);
    const axes = axesOf(dimensions);
    const parents = parentPopulation(
      inCompletionOrder(scoreTrials(trials.records, objectives), trials.records),
      config.populationSize,
      seeds.experiment,
    );
    const rng = createRng(seeds.call);
    const breed = createBreeder(axes, parents, {
      crossoverProb: config.crossoverProb,
      mutationProb: config.mutationProb ?? 1 / Math.max(1, dimensions.length),
      crossover: {
        kind: config.crossover,
        swappingProb: config.swappingProb,
        sbxEta: sbxEta(objectives.length),
      },
    });
    const taken = [...trials.history.map((o) => o.point), ...trials.pending];
    const points = collectDistinct(axes, taken, count, rng, () =>
      parents.length === 0 ? randomPoint(axes, rng) : breed(rng),
    );
    return { suggestions: points.map((point) => ({ assignments: toAssignments(dimensions, point) })) };
  },
};

export interface BreedingOptions {
  readonly crossoverProb: number;
  readonly mutationProb: number;
  readonly crossover: CrossoverOptions;
}

/** A function that makes one child of the parent population (at least as many as the crossover takes). */
export function createBreeder(
  axes: readonly Axis[],
  parents: readonly ScoredTrial[],
  options: BreedingOptions,
): (rng: Rng) => Point {
  const encoded = parents.map((p) => encodePoint(axes, p.point)!);
  const parentCount = PARENTS_PER_CROSSOVER[options.crossover.kind];
  /** Binary tournament among the parents not already chosen for this child. */
  const tournament = (rng: Rng, chosen: readonly number[] = []): number => {
    const pick = () => {
      let i = rng.int(parents.length);
      // Another trial each time: crossing a parent with itself copies it.
      while (chosen.includes(i)) i = rng.int(parents.length);
      return i;
    };
    const a = pick();
    const b = pick();
    return dominates(parents[b]!.losses, parents[a]!.losses) ? b : a;
  };
  return (rng) => {
    let child: number[];
    if (rng.next() < options.crossoverProb) {
      const chosen: number[] = [];
      while (chosen.length < parentCount) chosen.push(tournament(rng, chosen));
      child = crossover(
        axes,
        chosen.map((i) => encoded[i]!),
        options.crossover,
        rng,
      );
    } else {
      // Without crossover Optuna's sampler copies a parent drawn at random, not a tournament winner.
      child = [...encoded[rng.int(parents.length)]!];
    }
    for (let d = 0; d < axes.length; d++) {
      if (rng.next() >= options.mutationProb) continue;
      const axis = axes[d]!;
      child[d] = axis.kind === 'categorical' ? rng.int(axis.choices.length) : drawUnit(axis, rng);
    }
    return decodePoint(axes, child);
  };
}
