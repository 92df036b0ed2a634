// The pruners beside Katib's medianstop, by name: their settings as Katib carries them, and the
// verdict of one step of a running trial.
import { invalidArgument } from '../../../../shared/errors.ts';
import {
  HYPERBAND,
  HYPERBAND_SETTINGS,
  type HyperbandSettings,
  hyperbandStep,
  readHyperbandSettings,
} from './hyperband.ts';
import {
  PATIENT,
  type PatientSettings,
  patientDeclarations,
  patientStep,
  readPatientSettings,
} from './patient.ts';
import {
  PERCENTILE,
  PERCENTILE_SETTINGS,
  type PercentileSettings,
  percentileStep,
  readPercentileSettings,
} from './percentile.ts';
import { notAllowed, type Setting } from './settings.ts';
import {
  readSuccessiveHalvingSettings,
  SUCCESSIVE_HALVING,
  SUCCESSIVE_HALVING_SETTINGS,
  type SuccessiveHalvingSettings,
  successiveHalvingStep,
} from './successive-halving.ts';
import {
  readThresholdSettings,
  THRESHOLD,
  THRESHOLD_SETTINGS,
  type ThresholdSettings,
  thresholdStep,
} from './threshold.ts';
import type { StepInput, StepVerdict } from './types.ts';
import {
  readWilcoxonSettings,
  WILCOXON,
  WILCOXON_SETTINGS,
  type WilcoxonSettings,
  wilcoxonStep,
} from './wilcoxon.ts';

export type WrappablePruner =
  | { readonly algorithm: typeof PERCENTILE; readonly settings: PercentileSettings }
  | { readonly algorithm: typeof SUCCESSIVE_HALVING; readonly settings: SuccessiveHalvingSettings }
  | { readonly algorithm: typeof HYPERBAND; readonly settings: HyperbandSettings }
  | { readonly algorithm: typeof THRESHOLD; readonly settings: ThresholdSettings }
  | { readonly algorithm: typeof WILCOXON; readonly settings: WilcoxonSettings };

export type PrunerSpec =
  | WrappablePruner
  | {
      readonly algorithm: typeof PATIENT;
      readonly settings: PatientSettings;
      readonly wrapped: WrappablePruner | undefined;
    };

/** Each wrappable pruner: its reader, and the names of its settings. */
const WRAPPABLE = {
  [PERCENTILE]: { names: Object.keys(PERCENTILE_SETTINGS), read: readPercentileSettings },
  [SUCCESSIVE_HALVING]: {
    names: Object.keys(SUCCESSIVE_HALVING_SETTINGS),
    read: readSuccessiveHalvingSettings,
  },
  [HYPERBAND]: { names: Object.keys(HYPERBAND_SETTINGS), read: readHyperbandSettings },
  [THRESHOLD]: { names: Object.keys(THRESHOLD_SETTINGS), read: readThresholdSettings },
  [WILCOXON]: { names: Object.keys(WILCOXON_SETTINGS), read: readWilcoxonSettings },
} as const;

type WrappableName = keyof typeof WRAPPABLE;
const WRAPPABLE_NAMES = Object.keys(WRAPPABLE) as WrappableName[];

export const PRUNER_NAMES: readonly string[] = [...WRAPPABLE_NAMES, PATIENT];

const isWrappable = (name: string): name is WrappableName => (WRAPPABLE_NAMES as string[]).includes(name);

function readWrappable(
  algorithm: WrappableName,
  settings: readonly Setting[],
  label: string,
  extra: readonly string[] = [],
): WrappablePruner {
  // Each reader's settings type goes with its own name.
  return { algorithm, settings: WRAPPABLE[algorithm].read(settings, label, extra) } as WrappablePruner;
}

/**
 * The pruner `algorithm` names with its settings (INVALID_ARGUMENT naming a bad one), or undefined
 * when the name is not a pruner's. `patient` takes its own settings and those of the pruner it wraps.
 */
export function readPrunerSpec(algorithm: string, settings: readonly Setting[]): PrunerSpec | undefined {
  if (isWrappable(algorithm)) return readWrappable(algorithm, settings, algorithm);
  if (algorithm !== PATIENT) return undefined;
  const wrappedName = settings.findLast((s) => s.name === 'wrapped')?.value ?? '';
  // The wrapped pruner's name first: it tells which other settings belong to it.
  const declarations = patientDeclarations(WRAPPABLE_NAMES);
  if (wrappedName !== '' && !isWrappable(wrappedName))
    throw invalidArgument(notAllowed(PATIENT, 'wrapped', wrappedName, declarations.wrapped.kind.allowed));
  const wrappedNames = isWrappable(wrappedName) ? WRAPPABLE[wrappedName].names : [];
  const own = readPatientSettings(settings, WRAPPABLE_NAMES, wrappedNames);
  const ownNames = Object.keys(declarations);
  const wrapped = isWrappable(own.wrapped)
    ? readWrappable(own.wrapped, settings, `${PATIENT} (wrapping ${own.wrapped})`, ownNames)
    : undefined;
  return Object.freeze({ algorithm: PATIENT, settings: own, wrapped });
}

/**
 * @param autoSteps the longest succeeded trial in the experiment's first rules that had one (0
 *   before): what `auto` resources resolve to, once, as Optuna resolves them on first use
 */
export function prunerStep(spec: PrunerSpec, input: StepInput, autoSteps: number): StepVerdict {
  switch (spec.algorithm) {
    case PERCENTILE:
      return percentileStep(spec.settings, input);
    case SUCCESSIVE_HALVING:
      return successiveHalvingStep(spec.settings, input, autoSteps);
    case HYPERBAND:
      return hyperbandStep(spec.settings, input, autoSteps);
    case THRESHOLD:
      return thresholdStep(spec.settings, input);
    case WILCOXON:
      return wilcoxonStep(spec.settings, input);
    case PATIENT: {
      const { wrapped } = spec;
      return patientStep(spec.settings, input, wrapped && ((inner) => prunerStep(wrapped, inner, autoSteps)));
    }
  }
}

/** The pruner whose reference data the rules carry: the wrapped one for patient. */
export const innermost = (spec: PrunerSpec): WrappablePruner | undefined =>
  spec.algorithm === PATIENT ? spec.wrapped : spec;
