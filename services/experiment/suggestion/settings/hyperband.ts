// Hyperband's settings and the state it carries between calls in the reply's algorithm settings,
// under Katib's names and with Katib's defaults, derivations, messages and Python formatting
// (an eta given as "3" comes back as "3.0", a derived r as "1.1111111111111112").

import { invalidArgument } from '../../../../shared/errors.ts';
import { parseDecimal, pythonFloatRepr, readFloat } from '../../common/katib-numbers.ts';
import type { ExperimentView } from '../algorithm.ts';
import { rejectUnknown, type Setting } from './read.ts';

const STATE_NAMES = [
  'eta',
  's_max',
  'r_l',
  'b_l',
  'r',
  'n',
  'current_s',
  'current_i',
  'resource_name',
  'evaluating_trials',
];
const KNOWN = new Set([...STATE_NAMES, 'random_state']);

/** A number that remembers whether Python would hold it as a float (for str()). */
export interface PyNumber {
  readonly value: number;
  readonly float: boolean;
}

export interface HyperbandState {
  readonly eta: PyNumber;
  readonly sMax: number;
  readonly rL: number;
  readonly bL: number;
  readonly r: PyNumber;
  readonly n: number;
  readonly currentS: number;
  readonly currentI: number;
  readonly resourceName: string;
  readonly evaluatingTrials: number;
  readonly randomState?: number;
}

const pyInt = (name: string, text: string): number => Math.trunc(readFloat(name, text));

/** Python's int(math.log(r_l) / math.log(eta)). */
export const bracketCount = (rL: number, eta: number): number => Math.trunc(Math.log(rL) / Math.log(eta));

/** First bracket size and resource of bracket s, as Katib derives them. */
export const bracketSize = (sMax: number, eta: number, s: number): number =>
  Math.ceil((sMax + 1) * (eta ** s / (s + 1)));
export const bracketResource = (rL: number, eta: number, s: number): number => rL * eta ** -s;

/**
 * Reads and checks the settings (Katib's validation messages), then fills the state as Katib's
 * HyperBandParam.convert does. Katib's crashes become answers: r_l = 0 and eta below 2 are refused.
 */
export function readHyperbandSettings(s: ReadonlyMap<string, string>): HyperbandState {
  rejectUnknown(s, KNOWN, 'hyperband');
  const rLText = s.get('r_l');
  const resourceName = s.get('resource_name');
  if (rLText === undefined || resourceName === undefined)
    throw invalidArgument('r_l and resource_name must be set.');
  const rL = parseDecimal(rLText);
  // Katib refuses r_l < 0 and crashes on 0 (log of zero).
  if (rL === undefined || !(rL > 0) || !Number.isFinite(rL))
    throw invalidArgument('r_l must be a positive float number.');

  const etaText = s.get('eta');
  const etaValue = etaText === undefined ? 3 : Math.trunc(readFloat('eta', etaText));
  // Katib replaces eta <= 0 by 3 and divides by zero at eta = 1; neither makes a Hyperband.
  if (etaText !== undefined && !(etaValue >= 2))
    throw invalidArgument('eta must be an integer greater than or equal to 2.');
  const eta: PyNumber = { value: etaValue, float: etaText !== undefined };

  const intOr = (name: string, fallback: number): number => {
    const text = s.get(name);
    return text === undefined ? fallback : pyInt(name, text);
  };
  const randomStateText = s.get('random_state');
  const randomState = randomStateText === undefined ? undefined : pyInt('random_state', randomStateText);
  if (randomState !== undefined && randomState < 0)
    throw invalidArgument('random_state should be great or equal than zero');

  let sMax = intOr('s_max', -1);
  if (sMax < 0) sMax = bracketCount(rL, eta.value);
  const bLText = s.get('b_l');
  let bL = bLText === undefined ? -1 : readFloat('b_l', bLText);
  if (bL < 0) bL = (sMax + 1) * rL;
  let currentS = intOr('current_s', -2);
  const finished = currentS === -1;
  if (currentS < 0 && !finished) currentS = sMax;
  let currentI = intOr('current_i', -1);
  if (currentI < 0) currentI = 0;
  let n = intOr('n', -1);
  if (n < 0) n = bracketSize(sMax, eta.value, Math.max(currentS, 0));
  const rText = s.get('r');
  let r: PyNumber = { value: rText === undefined ? -1 : pyInt('r', rText), float: false };
  if (r.value < 0) r = { value: bracketResource(rL, eta.value, Math.max(currentS, 0)), float: true };
  const evaluatingTrials = intOr('evaluating_trials', 0);
  return { eta, sMax, rL, bL, r, n, currentS, currentI, resourceName, evaluatingTrials, randomState };
}

/** Katib's checks against the experiment: the resource parameter exists, parallelism fits the first bracket. */
export function checkHyperbandExperiment(experiment: ExperimentView, state: HyperbandState): void {
  const maxParallel = Math.ceil(state.eta.value ** bracketCount(state.rL, state.eta.value));
  if (experiment.parallelTrialCount < maxParallel)
    throw invalidArgument(`parallelTrialCount must be not less than ${maxParallel}.`);
  const resource = experiment.dimensions.find((d) => d.name === state.resourceName);
  if (resource === undefined) throw invalidArgument('value of resource_name setting must be in parameters.');
  if (resource.kind === 'categorical')
    throw invalidArgument(`parameter ${resource.name}: the resource of hyperband must be INT or DOUBLE`);
}

const py = (n: PyNumber): string => (n.float ? pythonFloatRepr(n.value) : String(n.value));

/** The state as Katib's HyperBandParam.generate writes it, in its order. */
export function hyperbandStateSettings(state: HyperbandState): Setting[] {
  return [
    { name: 'eta', value: py(state.eta) },
    { name: 's_max', value: String(state.sMax) },
    { name: 'r_l', value: pythonFloatRepr(state.rL) },
    { name: 'b_l', value: pythonFloatRepr(state.bL) },
    { name: 'r', value: py(state.r) },
    { name: 'n', value: String(state.n) },
    { name: 'current_s', value: String(state.currentS) },
    { name: 'current_i', value: String(state.currentI) },
    { name: 'resource_name', value: state.resourceName },
    { name: 'evaluating_trials', value: String(state.evaluatingTrials) },
  ];
}

export { STATE_NAMES as HYPERBAND_STATE_NAMES };
