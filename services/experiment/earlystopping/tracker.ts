// What the early-stopping judge knows, rebuilt from the topics: each experiment's issued rules
// (and pruner), which trial belongs to which experiment, the metric values of running trials, the
// rung records of successive halving, and which trials are finished. Pure and synchronous: the
// judge feeds it events in topic order and publishes what it returns.

import { parseFinite } from '../common/katib-numbers.ts';
import { judge, type Verdict } from './collector-rules.ts';
import type { PrunerSpec } from './pruners/pruner.ts';
import { RungBook } from './pruners/rung-book.ts';
import { EMPTY_REFERENCE, type Reference, type RungRecord } from './pruners/types.ts';
import { addSet, firstStepFrom, type IssuedSet, prunedMetric, pruneSteps } from './pruning.ts';
import { EMPTY_SERIES, SeriesBuffer } from './series-buffer.ts';

export interface StopDecision {
  readonly trialName: string;
  readonly experimentName: string;
  readonly verdict: Verdict;
}

/** A rung record with the experiment it belongs to, as it travels on the rules topic. */
export interface RecordedRung extends RungRecord {
  readonly experimentName: string;
  readonly algorithm: string;
}

/** What an event led to: trials to stop, and rung records to share with the other judges. */
export interface Judgement {
  readonly stops: StopDecision[];
  readonly records: RecordedRung[];
}

export interface ReportedLogs {
  readonly eventId: string;
  readonly trialName: string;
  /** When the report was acknowledged (the event's occurred_at). */
  readonly atMs: number;
  readonly logs: readonly { readonly metricName: string; readonly value: string }[];
}

export interface RulesIssued {
  readonly experimentName: string;
  readonly issuedAtMs: number;
  readonly objectiveMetric: string;
  readonly objectiveType: IssuedSet['objectiveType'];
  readonly rules: IssuedSet['rules'];
  /** The trials the request listed, with the condition it gave each. */
  readonly trials: readonly { readonly name: string; readonly condition: string }[];
  /** A pruner to run; its rules are then the collector's, not the judge's. */
  readonly pruner?: PrunerSpec;
  readonly reference?: Reference;
}

/** Conditions after which a trial runs no more: never stop it. */
const FINISHED = new Set(['SUCCEEDED', 'FAILED', 'KILLED', 'EARLYSTOPPED', 'METRICSUNAVAILABLE']);

interface TrialState {
  readonly samples: Map<string, SeriesBuffer>;
  readonly appliedEvents: Set<string>;
  /** Steps of the pruned metric judged so far. */
  judgedSteps: number;
}

interface ExperimentState {
  readonly sets: IssuedSet[];
  readonly rungs: RungBook;
}

export interface Tracker {
  onReport(report: ReportedLogs): Judgement;
  onDeleted(trialName: string): void;
  onRules(issued: RulesIssued): Judgement;
  /** A rung record from the rules topic (this judge's own ones come back too). */
  onRungRecorded(record: RecordedRung): Judgement;
  /** A status from experiment.trial-status, or the judge's own decision once published. */
  onStatus(trialName: string, condition: string): void;
  isFinished(trialName: string): boolean;
  /** Running trials with samples, for metrics. */
  runningTrials(): number;
}

const NOTHING: Judgement = Object.freeze({ stops: [], records: [] });

/**
 * @param maxSamplesPerMetric values kept per metric and trial: rules and pruners look at the first
 *   values only, so a bound far above any sensible step keeps memory flat.
 */
export function createTracker(options: { readonly maxSamplesPerMetric: number }): Tracker {
  const experiments = new Map<string, ExperimentState>();
  const listedExperiment = new Map<string, string>();
  const finished = new Set<string>();
  const running = new Map<string, TrialState>();

  const experiment = (name: string): ExperimentState => {
    let state = experiments.get(name);
    if (state === undefined) {
      state = { sets: [], rungs: new RungBook() };
      experiments.set(name, state);
    }
    return state;
  };

  /** Katib names trials `<experiment>-<suffix>`: the longest known experiment that prefixes it. */
  function experimentOf(trialName: string): string | undefined {
    const listed = listedExperiment.get(trialName);
    if (listed !== undefined) return listed;
    let best: string | undefined;
    for (const [name, state] of experiments)
      if (
        state.sets.length > 0 &&
        trialName.startsWith(`${name}-`) &&
        (best === undefined || name.length > best.length)
      )
        best = name;
    return best;
  }

  /**
   * Judges the trial by its rules, then by its pruner from the first step reported at or after
   * `fromAtMs` (undefined: from the first step not judged yet).
   */
  function decide(trialName: string, fromAtMs?: number): Judgement {
    const state = running.get(trialName);
    if (state === undefined || finished.has(trialName)) return NOTHING;
    const experimentName = experimentOf(trialName);
    if (experimentName === undefined) return NOTHING;
    const { sets, rungs } = experiment(experimentName);
    const samplesOf = (metric: string) => state.samples.get(metric) ?? EMPTY_SERIES;
    const verdict = judge(samplesOf, sets);
    if (verdict) return { stops: [{ trialName, experimentName, verdict }], records: [] };
    const metric = prunedMetric(sets);
    if (metric === undefined) return NOTHING;
    const series = samplesOf(metric);
    const from = fromAtMs === undefined ? state.judgedSteps + 1 : firstStepFrom(series, fromAtMs);
    const outcome = pruneSteps({ trialName, series, metric, sets, rungs, from });
    state.judgedSteps = Math.max(state.judgedSteps, series.length);
    const records = outcome.records.map((r) => ({ ...r, experimentName }));
    const stops = outcome.stop ? [{ trialName, experimentName, verdict: outcome.stop }] : [];
    return { stops, records };
  }

  function finish(trialName: string): void {
    finished.add(trialName);
    running.delete(trialName);
  }

  return {
    onReport(report) {
      if (finished.has(report.trialName)) return NOTHING;
      let state = running.get(report.trialName);
      if (state === undefined) {
        state = { samples: new Map(), appliedEvents: new Set(), judgedSteps: 0 };
        running.set(report.trialName, state);
      }
      if (state.appliedEvents.has(report.eventId)) return NOTHING;
      state.appliedEvents.add(report.eventId);
      for (const log of report.logs) {
        const value = parseFinite(log.value);
        if (value === undefined) continue;
        let samples = state.samples.get(log.metricName);
        if (samples === undefined) {
          samples = new SeriesBuffer(options.maxSamplesPerMetric);
          state.samples.set(log.metricName, samples);
        }
        samples.push(value, report.atMs);
      }
      return decide(report.trialName);
    },

    onDeleted(trialName) {
      running.delete(trialName);
    },

    onRules(issued) {
      for (const trial of issued.trials) {
        listedExperiment.set(trial.name, issued.experimentName);
        if (FINISHED.has(trial.condition)) finish(trial.name);
      }
      const pruner = issued.pruner;
      addSet(experiment(issued.experimentName).sets, {
        issuedAtMs: issued.issuedAtMs,
        objectiveMetric: issued.objectiveMetric,
        objectiveType: issued.objectiveType,
        algorithm: pruner?.algorithm ?? '',
        // A pruner's rules are a snapshot for Katib's collector: the judge runs the pruner itself.
        rules: pruner ? [] : issued.rules,
        pruner,
        reference: issued.reference ?? EMPTY_REFERENCE,
        autoSteps: 0,
      });
      const stops: StopDecision[] = [];
      const records: RecordedRung[] = [];
      for (const trialName of running.keys()) {
        if (experimentOf(trialName) !== issued.experimentName) continue;
        // Values reported since the set was issued are judged again, by it.
        const judgement = decide(trialName, issued.issuedAtMs);
        stops.push(...judgement.stops);
        records.push(...judgement.records);
      }
      return { stops, records };
    },

    onRungRecorded(record) {
      experiment(record.experimentName).rungs.add(record);
      // The judge that recorded a refusal stops the trial; should it fail to, whoever judges the
      // trial now does (a repeated stop is recognised by its event id).
      if (record.promoted || !running.has(record.trialName) || finished.has(record.trialName)) return NOTHING;
      const evidence = `value ${record.value} at step ${record.step} (rung ${record.rung}) was not promoted`;
      const verdict = { algorithm: record.algorithm, evidence };
      return {
        stops: [{ trialName: record.trialName, experimentName: record.experimentName, verdict }],
        records: [],
      };
    },

    onStatus(trialName, condition) {
      if (FINISHED.has(condition)) finish(trialName);
    },

    isFinished: (trialName) => finished.has(trialName),
    runningTrials: () => running.size,
  };
}
