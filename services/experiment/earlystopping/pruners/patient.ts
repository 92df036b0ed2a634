// `patient` (Optuna's PatientPruner): a trial is a candidate for stopping once its best value of
// the last `patience` + 1 steps is worse, by more than min_delta, than its best before them;
// a candidate stops at once, or only when the wrapped pruner also says so.
import { integerFrom, numberWithin, readDeclared, type Setting } from './settings.ts';
import { bestOf, GO_ON, type StepInput, type StepVerdict, stopBecause } from './types.ts';

export const PATIENT = 'patient';

export interface PatientSettings {
  readonly patience: number;
  readonly minDelta: number;
  /** The wrapped pruner's name; '' for none. */
  readonly wrapped: string;
}

export const patientDeclarations = (wrappable: readonly string[]) => ({
  patience: { kind: integerFrom(0) },
  min_delta: { kind: numberWithin(0, Infinity, 'a finite number >= 0'), default: 0 },
  wrapped: {
    kind: {
      allowed: `one of ${wrappable.join(', ')}, or empty for none`,
      read: (text: string) => (text === '' || wrappable.includes(text) ? text : undefined),
    },
    default: '',
  },
});

export function readPatientSettings(
  settings: readonly Setting[],
  wrappable: readonly string[],
  extra: readonly string[],
): PatientSettings {
  const read = readDeclared(PATIENT, settings, patientDeclarations(wrappable), extra);
  return Object.freeze({ patience: read.patience, minDelta: read.min_delta, wrapped: read.wrapped });
}

/** @param wrapped the wrapped pruner's verdict on the same step, or undefined for none */
export function patientStep(
  settings: PatientSettings,
  input: StepInput,
  wrapped: ((input: StepInput) => StepVerdict) | undefined,
): StepVerdict {
  const { step, curve, direction } = input;
  const recent = settings.patience + 1;
  if (step <= recent) return GO_ON;
  const before = bestOf(curve, 0, step - recent, direction);
  const after = bestOf(curve, step - recent, recent, direction);
  const stale =
    direction === 'MAXIMIZE' ? before - settings.minDelta > after : before + settings.minDelta < after;
  if (!stale) return GO_ON;
  const why = `best value ${after} of the last ${recent} steps (to step ${step}) is worse than ${before} before them by more than min_delta ${settings.minDelta}`;
  if (wrapped === undefined) return stopBecause(why);
  const verdict = wrapped(input);
  return verdict.stop
    ? { ...verdict, evidence: `${why}, and ${settings.wrapped}: ${verdict.evidence}` }
    : verdict;
}
