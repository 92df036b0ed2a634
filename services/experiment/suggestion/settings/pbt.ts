// Population based training settings: Katib's names, rules and messages, with its
// resample_probability check fixed (Katib compares the text with a number and crashes).

import { invalidArgument } from '../../../../shared/errors.ts';
import { readFloat, readInt } from '../../common/katib-numbers.ts';
import { optionalInt, rejectUnknown } from './read.ts';

const REQUIRED = ['suggestion_trial_dir', 'n_population', 'truncation_threshold'];

export interface PbtSettings {
  readonly suggestionTrialDir: string;
  readonly nPopulation: number;
  readonly truncationThreshold: number;
  /** Undefined: perturb by ×0.8 or ×1.2; otherwise the probability of resampling each parameter. */
  readonly resampleProbability?: number;
  readonly randomState?: number;
}

export function readPbtSettings(s: ReadonlyMap<string, string>): PbtSettings {
  const missing = REQUIRED.filter((name) => !s.has(name));
  if (missing.length > 0) throw invalidArgument(`Required params missing: ${missing.join(', ')}`);
  rejectUnknown(s, new Set([...REQUIRED, 'resample_probability', 'random_state']), 'pbt');
  const nPopulation = readInt('n_population', s.get('n_population')!);
  if (nPopulation < 5) throw invalidArgument('Param(n_population) should be >= 5');
  const truncationThreshold = readFloat('truncation_threshold', s.get('truncation_threshold')!);
  if (!(truncationThreshold >= 0 && truncationThreshold <= 1))
    throw invalidArgument('Param(truncation_threshold) should be between 0 and 1, inclusive');
  const resampleText = s.get('resample_probability');
  const resampleProbability =
    resampleText === undefined ? undefined : readFloat('resample_probability', resampleText);
  if (resampleProbability !== undefined && !(resampleProbability >= 0 && resampleProbability <= 1)) {
    throw invalidArgument(
      'Param(resample_probability) should be null to perturb at 0.8 or 1.2, or be between 0 and 1, inclusive, to resample',
    );
  }
  const randomState = optionalInt(
    s,
    'random_state',
    (v) => v >= 0,
    'random_state should be great or equal than zero',
  );
  return {
    suggestionTrialDir: s.get('suggestion_trial_dir')!,
    nPopulation,
    truncationThreshold,
    ...(resampleProbability === undefined ? {} : { resampleProbability }),
    ...(randomState === undefined ? {} : { randomState }),
  };
}
