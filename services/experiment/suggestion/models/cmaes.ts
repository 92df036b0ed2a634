// CMA-ES for a stateless service: the evolution state is rebuilt on every call by replaying the
// completed trials in order, λ at a time, as the generations they form (the trials' points
// themselves, so suggestions rounded to a step or made by someone else are used as evaluated).
// Restarts (IPOP, BIPOP) happen during the replay, so they too follow from the history alone.
// Integer and stepped parameters are rounded; their spread never drops below a quarter of a
// step, a margin that keeps neighbouring values reachable. Categorical parameters, which the
// Gaussian cannot model, follow a probability vector each that learns from the same ranks
// (./cmaes-categorical.ts); Optuna and goptuna draw them at random.

import { createRng, type Rng } from '../rng.ts';
import type { Observation, Point, Sampler } from '../space.ts';
import {
  type CategoricalState,
  cloneCategorical,
  createCategorical,
  sampleCategorical,
  tellCategorical,
} from './cmaes-categorical.ts';
import {
  cloneEs,
  createEs,
  defaultPopulation,
  type EsState,
  rankOrder,
  sampleEs,
  shouldRestart,
  tellEs,
} from './cmaes-state.ts';
import { axesOf, type CategoricalAxis, collectDistinct, type NumericAxis } from './unit-space.ts';

export type RestartStrategy = 'none' | 'ipop' | 'bipop';

export interface CmaesOptions {
  /**
   * Initial step size in the parameters' units, relative to the narrowest numeric parameter
   * (goptuna and Optuna take sigma0 in raw units, defaulting to a sixth of the narrowest
   * range). Undefined or 0: a sixth of every range.
   */
  readonly sigma: number | undefined;
  /** Restart with a doubled population (ipop) or alternating large and small ones (bipop). */
  readonly restartStrategy: RestartStrategy;
}

export const DEFAULT_CMAES_OPTIONS: CmaesOptions = Object.freeze({
  sigma: undefined,
  restartStrategy: 'none',
});

/**
 * Hansen's default population (4 + ⌊3·ln n⌋) leaves about ten generations in a 100-trial
 * experiment; five per generation doubles that, and lowered the median regret on every anchor
 * problem (Rosenbrock-4: 45 → 15, Hartmann-6: 0.32 → 0.15; 20 seeds). IPOP/BIPOP restarts
 * still grow it.
 */
const SMALL_BUDGET_POPULATION = 5;

/**
 * Up to this many trials (the experiment's max_trial_count) the two parents are weighed
 * greedily and the rest not at all; beyond it, or with no max_trial_count, active CMA also
 * learns from the worse half (negative weights), which teaches the covariance a narrow valley in
 * fewer generations. On the BBOB grid (docs/performance.md) greedy was ahead at budget 50 and
 * active at 200 and 500 (2-D Rosenbrock, ellipsoids, discus, bent cigar: 1e4–1e5× closer to
 * Optuna's CmaEsSampler at 500); the anchors' 100 trials keep greedy, which they were tuned on.
 */
const GREEDY_BUDGET = 100;

/** Restart draws must not depend on the request's generator, or replays would disagree. */
const RESTART_SEED = 0x0c3a_e5;

export const cmaes: Sampler<CmaesOptions> = ({
  dimensions,
  history,
  pending,
  count,
  rng,
  options,
  budget,
}) => {
  const axes = axesOf(dimensions);
  const numeric = axes.flatMap((axis, d) => (axis.kind === 'numeric' ? [{ axis, d }] : []));
  const categorical = axes.flatMap((axis, d) => (axis.kind === 'categorical' ? [{ axis, d }] : []));
  const run = numeric.length === 0 ? undefined : replay(numeric, categorical, history, options, budget);
  return collectDistinct(axes, pending, count, rng, () => {
    const x = run ? sampleWithMargin(run.es, numeric, rng) : undefined;
    return axes.map((axis, d) => {
      if (axis.kind === 'categorical') {
        if (!run) return axis.choices[rng.int(axis.choices.length)]!;
        const a = categorical.findIndex((entry) => entry.d === d);
        return axis.choices[sampleCategorical(run.categorical, a, rng)]!;
      }
      return axis.fromUnit(x![numeric.findIndex((entry) => entry.d === d)]!);
    });
  });
};

interface NumericEntry {
  readonly axis: NumericAxis;
  readonly d: number;
}

interface CategoricalEntry {
  readonly axis: CategoricalAxis;
  readonly d: number;
}

/** The numeric distribution and the categorical probabilities, which evolve together. */
interface Run {
  readonly es: EsState;
  readonly categorical: CategoricalState;
}

const createRun = (es: EsState, categorical: readonly CategoricalEntry[]): Run => ({
  es,
  categorical: createCategorical(
    categorical.map(({ axis }) => axis.choices.length),
    es.lambda,
  ),
});

const cloneRun = (run: Run): Run => ({ es: cloneEs(run.es), categorical: cloneCategorical(run.categorical) });

function initialSigma(numeric: readonly NumericEntry[], options: CmaesOptions): number {
  if (!options.sigma) return 1 / 6;
  const narrowest = Math.min(
    ...numeric.map(({ axis }) => {
      const { low, high } = axis.dimension;
      return high > low ? high - low : Number.POSITIVE_INFINITY;
    }),
  );
  return Number.isFinite(narrowest) ? options.sigma / narrowest : 1 / 6;
}

function replay(
  numeric: readonly NumericEntry[],
  categorical: readonly CategoricalEntry[],
  history: readonly Observation[],
  options: CmaesOptions,
  budget: number | undefined,
): Run {
  const n = numeric.length;
  const sigma0 = initialSigma(numeric, options);
  const lambda0 = Math.min(defaultPopulation(n), SMALL_BUDGET_POPULATION);
  const active = budget === undefined || budget > GREEDY_BUDGET;
  const told: Float64Array[] = [];
  const losses: number[] = [];
  for (const observation of history) {
    const x = encodeTold(numeric, categorical, observation.point);
    if (!x || !Number.isFinite(observation.loss)) continue;
    told.push(x);
    losses.push(observation.loss);
  }
  if (options.restartStrategy !== 'none') {
    const restarts = createRestarts(n, lambda0, sigma0, options.restartStrategy, active);
    return tellGenerations(
      createRun(createEs(n, lambda0, new Float64Array(n).fill(0.5), sigma0, active), categorical),
      told,
      losses,
      0,
      (run, generationLosses) =>
        shouldRestart(run.es, generationLosses, sigma0) ? createRun(restarts.next(run.es), categorical) : run,
    ).state;
  }
  const config = `${n} ${lambda0} ${sigma0} ${active} ${categorical.map(({ axis }) => axis.choices.length)}`;
  const resumed = REPLAYS.resume(config, told, losses);
  const start = resumed ?? {
    state: createRun(createEs(n, lambda0, new Float64Array(n).fill(0.5), sigma0, active), categorical),
    count: 0,
  };
  const { state, count } = tellGenerations(start.state, told, losses, start.count);
  if (count > start.count) REPLAYS.keep(config, told, losses, count, state);
  return state;
}

/**
 * Tells `state` the observations from `from` on, λ at a time; what does not fill a generation is
 * left untold. Returns the state and how many observations it has been told in all.
 */
function tellGenerations(
  initial: Run,
  told: readonly Float64Array[],
  losses: readonly number[],
  from: number,
  /** What follows a generation (a restart): the state to go on with. */
  afterGeneration?: (state: Run, losses: readonly number[]) => Run,
): { state: Run; count: number } {
  let state = initial;
  let count = from;
  while (told.length - count >= state.es.lambda) {
    const end = count + state.es.lambda;
    const generation = told.slice(count, end);
    const generationLosses = losses.slice(count, end);
    const { n, constants } = state.es;
    // Without categoricals a told point is its numeric coordinates: no views to make.
    if (state.categorical.probabilities.length === 0) tellEs(state.es, generation, generationLosses);
    else {
      const choices = generation.map((x) => Array.from(x.subarray(n)));
      tellCategorical(state.categorical, choices, rankOrder(generationLosses), constants.weights);
      tellEs(
        state.es,
        generation.map((x) => x.subarray(0, n)),
        generationLosses,
      );
    }
    count = end;
    state = afterGeneration?.(state, generationLosses) ?? state;
  }
  return { state, count };
}

/**
 * Every call of an experiment replays the same generations plus the newest: the state after the
 * last complete generation is kept with what it was told, and a later call whose history starts
 * with exactly that resumes from a copy. A copy continues with the same arithmetic as a full
 * replay, so the suggestions are the same bit for bit. (Restart strategies draw from a generator of
 * their own and always replay in full.)
 */
const REPLAYS = createReplayCheckpoints(32, 65_536);

/** Drops every kept checkpoint: the next calls replay in full (tests compare the two). */
export const forgetReplayCheckpoints = (): void => REPLAYS.clear();

/** At most `capacity` checkpoints of at most `maxTold` numbers each (16 MiB in all here). */
function createReplayCheckpoints(capacity: number, maxTold: number) {
  interface Checkpoint {
    readonly config: string;
    /** The told observations, each its coordinates, its category indices, then its loss. */
    readonly told: Float64Array;
    readonly count: number;
    readonly state: Run;
  }
  let kept: Checkpoint[] = [];
  const matches = (checkpoint: Checkpoint, told: readonly Float64Array[], losses: readonly number[]) => {
    const width = (told[0]?.length ?? 0) + 1;
    if (told.length < checkpoint.count) return false;
    for (let i = 0; i < checkpoint.count; i++) {
      const x = told[i]!;
      const at = i * width;
      for (let j = 0; j < x.length; j++) if (x[j] !== checkpoint.told[at + j]) return false;
      if (losses[i] !== checkpoint.told[at + x.length]) return false;
    }
    return true;
  };
  return {
    clear() {
      kept = [];
    },
    resume(config: string, told: readonly Float64Array[], losses: readonly number[]) {
      let best: Checkpoint | undefined;
      for (const checkpoint of kept)
        if (
          checkpoint.config === config &&
          checkpoint.count > (best?.count ?? 0) &&
          matches(checkpoint, told, losses)
        )
          best = checkpoint;
      return best && { state: cloneRun(best.state), count: best.count };
    },
    keep(
      config: string,
      told: readonly Float64Array[],
      losses: readonly number[],
      count: number,
      state: Run,
    ) {
      const width = told[0]!.length + 1;
      if (count * width > maxTold) return; // a very long history replays in full each call
      const flat = new Float64Array(count * width);
      for (let i = 0; i < count; i++) {
        flat.set(told[i]!, i * width);
        flat[i * width + width - 1] = losses[i]!;
      }
      const checkpoint: Checkpoint = { config, told: flat, count, state: cloneRun(state) };
      // The one it extends is no longer needed; the oldest go beyond the capacity.
      kept = kept.filter(
        (other) => !(other.config === config && other.count < count && matches(other, told, losses)),
      );
      kept.push(checkpoint);
      if (kept.length > capacity) kept = kept.slice(kept.length - capacity);
    },
  };
}

/** The numeric coordinates in the unit cube, then each categorical's index (−1: not a choice). */
function encodeTold(
  numeric: readonly NumericEntry[],
  categorical: readonly CategoricalEntry[],
  point: Point,
): Float64Array | undefined {
  const x = new Float64Array(numeric.length + categorical.length);
  for (let i = 0; i < numeric.length; i++) {
    const { axis, d } = numeric[i]!;
    const unit = axis.toUnit(Number(point[d]));
    if (!Number.isFinite(unit)) return undefined;
    x[i] = Math.min(1, Math.max(0, unit));
  }
  categorical.forEach(({ axis, d }, a) => {
    x[numeric.length + a] = axis.choices.indexOf(String(point[d]));
  });
  return x;
}

/** IPOP doubles the population at each restart; BIPOP (Hansen 2009) interleaves small, local runs. */
function createRestarts(
  n: number,
  lambda0: number,
  sigma0: number,
  strategy: RestartStrategy,
  active: boolean,
) {
  const rng = createRng(RESTART_SEED);
  let largeRuns = 0;
  let largeBudget = 0;
  let smallBudget = 0;
  let lastWasSmall = false;
  const randomMean = () => Float64Array.from({ length: n }, () => rng.next());
  return {
    next(finished: EsState): EsState {
      const used = finished.lambda * finished.generation;
      if (lastWasSmall) smallBudget += used;
      else largeBudget += used;
      if (strategy === 'bipop' && largeRuns > 0 && smallBudget < largeBudget) {
        lastWasSmall = true;
        const largeLambda = lambda0 * 2 ** largeRuns;
        const u = rng.next();
        const lambda = Math.max(lambda0, Math.floor(lambda0 * (0.5 * (largeLambda / lambda0)) ** (u * u)));
        return createEs(n, lambda, randomMean(), sigma0 * 10 ** (-2 * rng.next()), active);
      }
      lastWasSmall = false;
      largeRuns += 1;
      return createEs(n, lambda0 * 2 ** largeRuns, randomMean(), sigma0, active);
    },
  };
}

function sampleWithMargin(state: EsState, numeric: readonly NumericEntry[], rng: Rng): Float64Array {
  const x = sampleEs(state, rng);
  for (let i = 0; i < numeric.length; i++) {
    const { levels } = numeric[i]!.axis;
    if (levels === undefined || levels < 2) continue;
    const spread = state.sigma * Math.sqrt(state.cov[i * state.n + i]!);
    const floor = 0.25 / levels;
    if (spread < floor) {
      const extra = Math.sqrt(floor * floor - spread * spread) * rng.normal();
      x[i] = Math.min(1, Math.max(0, x[i]! + extra));
    }
  }
  return x;
}
