// What the early-stopping judge knows, rebuilt from the topics: each experiment's issued rules,
// which trial belongs to which experiment, the metric values of running trials, and which trials
// are finished. Pure and synchronous: the judge feeds it events in topic order and publishes the
// decisions it returns.

import { parseFinite } from '../common/katib-numbers.ts';
import { type IssuedRules, judge, type Verdict } from './collector-rules.ts';
import { EMPTY_SERIES, SeriesBuffer } from './series-buffer.ts';

export interface StopDecision {
  readonly trialName: string;
  readonly experimentName: string;
  readonly verdict: Verdict;
}

export interface ReportedLogs {
  readonly eventId: string;
  readonly trialName: string;
  /** When the report was acknowledged (the event's occurred_at). */
  readonly atMs: number;
  readonly logs: readonly { readonly metricName: string; readonly value: string }[];
}

export interface RulesIssued extends IssuedRules {
  readonly experimentName: string;
  /** The trials the request listed, with the condition it gave each. */
  readonly trials: readonly { readonly name: string; readonly condition: string }[];
}

/** Conditions after which a trial runs no more: never stop it. */
const FINISHED = new Set(['SUCCEEDED', 'FAILED', 'KILLED', 'EARLYSTOPPED', 'METRICSUNAVAILABLE']);

interface TrialState {
  readonly samples: Map<string, SeriesBuffer>;
  readonly appliedEvents: Set<string>;
}

export interface Tracker {
  onReport(report: ReportedLogs): StopDecision[];
  onDeleted(trialName: string): void;
  onRules(issued: RulesIssued): StopDecision[];
  /** A status from experiment.trial-status, or the judge's own decision once published. */
  onStatus(trialName: string, condition: string): void;
  isFinished(trialName: string): boolean;
  /** Running trials with samples, for metrics. */
  runningTrials(): number;
}

/**
 * @param maxSamplesPerMetric values kept per metric and trial: rules only look at the first
 *   `start_step` values, so a bound far above any sensible start_step keeps memory flat.
 */
export function createTracker(options: { readonly maxSamplesPerMetric: number }): Tracker {
  const rulesByExperiment = new Map<string, IssuedRules[]>();
  const listedExperiment = new Map<string, string>();
  const finished = new Set<string>();
  const running = new Map<string, TrialState>();

  /** Katib names trials `<experiment>-<suffix>`: the longest known experiment that prefixes it. */
  function experimentOf(trialName: string): string | undefined {
    const listed = listedExperiment.get(trialName);
    if (listed !== undefined) return listed;
    let best: string | undefined;
    for (const experiment of rulesByExperiment.keys())
      if (trialName.startsWith(`${experiment}-`) && (best === undefined || experiment.length > best.length))
        best = experiment;
    return best;
  }

  function decide(trialName: string): StopDecision | undefined {
    const state = running.get(trialName);
    if (state === undefined || finished.has(trialName)) return undefined;
    const experimentName = experimentOf(trialName);
    if (experimentName === undefined) return undefined;
    const verdict = judge(
      (metric) => state.samples.get(metric) ?? EMPTY_SERIES,
      rulesByExperiment.get(experimentName) ?? [],
    );
    return verdict && { trialName, experimentName, verdict };
  }

  function finish(trialName: string): void {
    finished.add(trialName);
    running.delete(trialName);
  }

  return {
    onReport(report) {
      if (finished.has(report.trialName)) return [];
      let state = running.get(report.trialName);
      if (state === undefined) {
        state = { samples: new Map(), appliedEvents: new Set() };
        running.set(report.trialName, state);
      }
      if (state.appliedEvents.has(report.eventId)) return [];
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
      const decision = decide(report.trialName);
      return decision ? [decision] : [];
    },

    onDeleted(trialName) {
      running.delete(trialName);
    },

    onRules(issued) {
      for (const trial of issued.trials) {
        listedExperiment.set(trial.name, issued.experimentName);
        if (FINISHED.has(trial.condition)) finish(trial.name);
      }
      const sets = rulesByExperiment.get(issued.experimentName) ?? [];
      sets.push({
        issuedAtMs: issued.issuedAtMs,
        objectiveMetric: issued.objectiveMetric,
        objectiveType: issued.objectiveType,
        rules: issued.rules,
      });
      sets.sort((a, b) => a.issuedAtMs - b.issuedAtMs);
      rulesByExperiment.set(issued.experimentName, sets);
      const decisions: StopDecision[] = [];
      for (const trialName of running.keys()) {
        if (experimentOf(trialName) !== issued.experimentName) continue;
        const decision = decide(trialName);
        if (decision) decisions.push(decision);
      }
      return decisions;
    },

    onStatus(trialName, condition) {
      if (FINISHED.has(condition)) finish(trialName);
    },

    isFinished: (trialName) => finished.has(trialName),
    runningTrials: () => running.size,
  };
}
