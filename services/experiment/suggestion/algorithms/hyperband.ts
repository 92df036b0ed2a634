// Synchronous Hyperband as Katib runs it (its bracket arithmetic, its state in the reply's
// algorithm settings), with Katib's stalls fixed:
// - a rung answers exactly current_request_number suggestions: the best trials of the finished
//   rung are promoted, and when more are asked for, fresh random configurations join the rung at
//   the same resource (Katib answers ceil(n_i/eta) and the controller rejects the reply);
// - while the previous rung still runs, FAILED_PRECONDITION names the trials it waits for (the
//   controller retries), and failed trials of that rung are simply never promoted;
// - after the last bracket a new Hyperband iteration starts (Katib answers nothing and stalls).

import { AppError } from '../../../../shared/errors.ts';
import { formatDouble } from '../../common/katib-numbers.ts';
import type { Algorithm, Suggestion } from '../algorithm.ts';
import { type TrialRecord, toAssignments } from '../katib-space.ts';
import { createRng } from '../rng.ts';
import {
  bracketResource,
  bracketSize,
  checkHyperbandExperiment,
  type HyperbandState,
  hyperbandStateSettings,
  readHyperbandSettings,
} from '../settings/hyperband.ts';
import type { Dimension } from '../space.ts';
import { randomSampler } from './random.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Starts bracket s (Katib's _new_hbParameters). */
function startBracket(state: Mutable<HyperbandState>, s: number): void {
  state.currentS = s;
  state.currentI = 0;
  state.evaluatingTrials = 0;
  if (s >= 0) {
    state.n = bracketSize(state.sMax, state.eta.value, s);
    state.r = { value: bracketResource(state.rL, state.eta.value, s), float: true };
  }
}

/** The resource as text: Katib's str(int(r)) for INT, the exact value for a DOUBLE resource. */
const resourceText = (dimension: Dimension, r: number): string =>
  dimension.kind === 'float' ? formatDouble(r) : String(Math.trunc(r));

/** The rung that just ran: the last `count` trials by start time (not yet started ones are the newest). */
function previousRung(records: readonly TrialRecord[], count: number): TrialRecord[] {
  const ordered = records
    .map((record, index) => ({ record, index }))
    .sort((a, b) => {
      const at = a.record.startTime || '\uffff';
      const bt = b.record.startTime || '\uffff';
      return at < bt ? -1 : at > bt ? 1 : a.index - b.index;
    });
  return ordered.slice(Math.max(0, ordered.length - count)).map((entry) => entry.record);
}

const RUNNING = new Set(['CREATED', 'RUNNING', 'UNKNOWN']);

export const hyperband: Algorithm<HyperbandState> = {
  readSettings: readHyperbandSettings,
  checkExperiment: checkHyperbandExperiment,
  suggest({ experiment, config, trials, count, seeds }) {
    const { dimensions } = experiment;
    const state: Mutable<HyperbandState> = { ...config };
    if (state.currentS < 0) startBracket(state, state.sMax);
    // Katib's bracket size is the controller's request (its "hack to get request number").
    state.n = count;
    const resource = dimensions.find((d) => d.name === state.resourceName)!;
    const rng = createRng(seeds.call);
    const fresh = (k: number, r: number): Suggestion[] =>
      randomSampler({
        dimensions,
        history: trials.history,
        pending: trials.pending,
        count: k,
        rng,
        options: {},
      }).map((point) => ({
        assignments: toAssignments(dimensions, point).map((a) =>
          a.name === resource.name ? { name: a.name, value: resourceText(resource, r) } : a,
        ),
      }));

    let suggestions: Suggestion[];
    if (state.evaluatingTrials === 0) {
      suggestions = fresh(count, state.r.value);
    } else {
      const eta = state.eta.value;
      const rungSize = Math.ceil(state.n * eta ** -state.currentI);
      const promote = Math.min(count, Math.ceil(rungSize / eta));
      state.currentI += 1;
      const r = state.r.value * eta ** state.currentI;
      const rung = previousRung(trials.records, state.evaluatingTrials);
      const waiting = rung.filter((t) => RUNNING.has(t.condition));
      if (waiting.length > 0) {
        throw new AppError(
          'FAILED_PRECONDITION',
          `hyperband: waiting for the trials of the current rung to finish: ${waiting.map((t) => t.name).join(', ')}`,
        );
      }
      const best = rung
        .filter((t) => t.loss !== undefined)
        .sort((a, b) => a.loss! - b.loss!)
        .slice(0, promote);
      suggestions = best.map((t) => ({
        assignments: dimensions.map((d) => ({
          name: d.name,
          value: d === resource ? resourceText(resource, r) : t.assignments.get(d.name)!,
        })),
      }));
      suggestions.push(...fresh(count - suggestions.length, r));
    }
    state.evaluatingTrials = state.currentI < state.currentS ? suggestions.length : 0;
    if (state.evaluatingTrials === 0) startBracket(state, state.currentS - 1);
    return { suggestions, algorithmSettings: hyperbandStateSettings(state) };
  },
};
