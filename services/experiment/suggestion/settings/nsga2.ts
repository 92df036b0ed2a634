// nsga2 settings: Optuna's NSGAIISampler names and defaults, plus `objectives`
// (../multi-objective/objectives.ts). Every refusal names the setting, the value and what is allowed.

import { invalidArgument } from '../../../../shared/errors.ts';
import { OBJECTIVES_SETTING } from '../multi-objective/objectives.ts';
import { optionalFloat, optionalInt, rejectUnknown } from './read.ts';

/** The crossovers this service implements; Optuna's vsbx is refused, naming these. */
export const NSGA2_CROSSOVERS = ['uniform', 'sbx', 'blxalpha', 'spx', 'undx'] as const;
/** spx and undx take three parents, the others two: the population must hold that many. */
export const PARENTS_PER_CROSSOVER: Readonly<Record<Nsga2Crossover, number>> = {
  uniform: 2,
  sbx: 2,
  blxalpha: 2,
  spx: 3,
  undx: 3,
};
export type Nsga2Crossover = (typeof NSGA2_CROSSOVERS)[number];

export interface Nsga2Settings {
  /** The setting's text; checked against the experiment's objective in checkExperiment. */
  readonly objectives?: string;
  readonly populationSize: number;
  /** Undefined (Optuna's None): 1 / number of parameters. */
  readonly mutationProb?: number;
  readonly crossover: Nsga2Crossover;
  readonly crossoverProb: number;
  readonly swappingProb: number;
  readonly randomState?: number;
}

export const NSGA2_DEFAULTS = Object.freeze({
  populationSize: 50,
  crossover: 'uniform' as Nsga2Crossover,
  crossoverProb: 0.9,
  swappingProb: 0.5,
});

const KNOWN = new Set([
  OBJECTIVES_SETTING,
  'population_size',
  'mutation_prob',
  'crossover',
  'crossover_prob',
  'swapping_prob',
  'random_state',
]);

const refusal = (name: string, value: string, allowed: string) =>
  `${name} ${value} is not allowed: ${allowed}`;
const refuse = (name: string, value: string, allowed: string) =>
  invalidArgument(refusal(name, value, allowed));
/** A number setting refused, when `check` fails, naming the value given and `allowed`. */
const optional = (
  read: typeof optionalInt,
  s: ReadonlyMap<string, string>,
  name: string,
  check: (value: number) => boolean,
  allowed: string,
) => read(s, name, check, (text) => refusal(name, text, allowed));

export function readNsga2Settings(s: ReadonlyMap<string, string>): Nsga2Settings {
  rejectUnknown(s, KNOWN, 'nsga2');
  const populationSize = optional(optionalInt, s, 'population_size', (v) => v >= 2, 'an integer >= 2');
  const crossoverText = s.get('crossover');
  if (crossoverText !== undefined && !(NSGA2_CROSSOVERS as readonly string[]).includes(crossoverText))
    throw refuse('crossover', crossoverText, `one of ${NSGA2_CROSSOVERS.join(', ')}`);
  const probability = (name: string) =>
    optional(optionalFloat, s, name, (v) => v >= 0 && v <= 1, 'a number between 0 and 1, inclusive');
  const mutationText = s.get('mutation_prob');
  const mutationProb =
    mutationText === undefined || mutationText === 'None'
      ? undefined
      : optional(
          optionalFloat,
          s,
          'mutation_prob',
          (v) => v >= 0 && v <= 1,
          'None or a number between 0 and 1, inclusive',
        );
  const randomState = optional(optionalInt, s, 'random_state', (v) => v >= 0, 'an integer >= 0');
  const crossover = (crossoverText as Nsga2Crossover | undefined) ?? NSGA2_DEFAULTS.crossover;
  const size = populationSize ?? NSGA2_DEFAULTS.populationSize;
  if (size < PARENTS_PER_CROSSOVER[crossover])
    throw refuse(
      'population_size',
      String(size),
      `at least ${PARENTS_PER_CROSSOVER[crossover]} with crossover ${crossover}, which takes ${PARENTS_PER_CROSSOVER[crossover]} parents`,
    );
  return {
    ...(s.has(OBJECTIVES_SETTING) ? { objectives: s.get(OBJECTIVES_SETTING)! } : {}),
    populationSize: size,
    ...(mutationProb === undefined ? {} : { mutationProb }),
    crossover,
    crossoverProb: probability('crossover_prob') ?? NSGA2_DEFAULTS.crossoverProb,
    swappingProb: probability('swapping_prob') ?? NSGA2_DEFAULTS.swappingProb,
    ...(randomState === undefined ? {} : { randomState }),
  };
}
