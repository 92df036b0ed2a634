// `hyperband` (Optuna's HyperbandPruner): brackets of successive halving that start at different
// rungs. A trial's bracket comes from a hash of its name, weighted by each bracket's trial budget,
// and it competes only with the trials of its bracket. Bracket b is successive halving with
// min_early_stopping_rate b.
import { crc32 } from 'node:zlib';
import { invalidArgument } from '../../../../shared/errors.ts';
import { integerFrom, integerFromOrAuto, notAllowed, readDeclared, type Setting } from './settings.ts';
import { type Ladder, ladderStep } from './successive-halving.ts';
import { GO_ON, type StepInput, type StepVerdict } from './types.ts';

export const HYPERBAND = 'hyperband';

export interface HyperbandSettings {
  readonly minResource: number;
  readonly maxResource: number | 'auto';
  readonly reductionFactor: number;
  readonly bootstrapCount: number;
}

export const HYPERBAND_SETTINGS = {
  min_resource: { kind: integerFrom(1), default: 1 },
  max_resource: { kind: integerFromOrAuto(1), default: 'auto' as const },
  reduction_factor: { kind: integerFrom(2), default: 3 },
  bootstrap_count: { kind: integerFrom(0), default: 0 },
};

export function readHyperbandSettings(
  settings: readonly Setting[],
  algorithm = HYPERBAND,
  extra: readonly string[] = [],
): HyperbandSettings {
  const read = readDeclared(algorithm, settings, HYPERBAND_SETTINGS, extra);
  if (read.max_resource !== 'auto' && read.max_resource < read.min_resource)
    throw invalidArgument(
      notAllowed(
        algorithm,
        'max_resource',
        String(read.max_resource),
        `at least min_resource (${read.min_resource}), or auto`,
      ),
    );
  if (read.bootstrap_count > 0 && read.max_resource === 'auto')
    throw invalidArgument(
      notAllowed(algorithm, 'bootstrap_count', String(read.bootstrap_count), '0 while max_resource is auto'),
    );
  return Object.freeze({
    minResource: read.min_resource,
    maxResource: read.max_resource,
    reductionFactor: read.reduction_factor,
    bootstrapCount: read.bootstrap_count,
  });
}

export interface Brackets {
  readonly count: number;
  /** Each bracket's share of trials (Hyperband's n_i): the first brackets stop most, so take most. */
  readonly budgets: readonly number[];
  readonly total: number;
}

/**
 * floor(log_η(max / min)) + 1 brackets, counted in integers (a logarithm in floating point can fall
 * just short of a whole power).
 */
export function bracketsFor(minResource: number, maxResource: number, reductionFactor: number): Brackets {
  let count = 1;
  while (minResource * reductionFactor ** count <= maxResource) count++;
  const budgets = Array.from({ length: count }, (_, bracket) => {
    const s = count - 1 - bracket;
    return Math.ceil((count * reductionFactor ** s) / (s + 1));
  });
  return { count, budgets, total: budgets.reduce((a, b) => a + b, 0) };
}

export function bracketOf(trialName: string, brackets: Brackets): number {
  let n = crc32(trialName) % brackets.total;
  for (let bracket = 0; bracket < brackets.count; bracket++) {
    n -= brackets.budgets[bracket]!;
    if (n < 0) return bracket;
  }
  return brackets.count - 1;
}

/** The resource range, or undefined while `auto` has no succeeded trial to come from. */
export function hyperbandBrackets(settings: HyperbandSettings, autoSteps: number): Brackets | undefined {
  const max = settings.maxResource === 'auto' ? autoSteps : settings.maxResource;
  if (max < settings.minResource) return undefined;
  return bracketsFor(settings.minResource, max, settings.reductionFactor);
}

export const ladderOf = (settings: HyperbandSettings, bracket: number): Ladder => ({
  bracket,
  minResource: settings.minResource,
  reductionFactor: settings.reductionFactor,
  rate: bracket,
  bootstrapCount: settings.bootstrapCount,
});

export function hyperbandStep(settings: HyperbandSettings, input: StepInput, autoSteps: number): StepVerdict {
  const brackets = hyperbandBrackets(settings, autoSteps);
  if (brackets === undefined) return GO_ON;
  const bracket = bracketOf(input.trialName, brackets);
  return ladderStep(ladderOf(settings, bracket), input, `bracket ${bracket} of ${brackets.count}: `);
}
