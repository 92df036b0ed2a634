// A trial's observation as Katib's trial controller makes it from the observation log
// (managerclient.go getMetrics): per metric the latest value (greatest time, a tie to the later
// log), the lowest and the highest number; and the experiment's best trial (status_util.go).
import { UNAVAILABLE_METRIC_VALUE } from '../../common/trial-run.ts';
import type { MetricStrategy, ObjectiveType } from '../definition/definition.ts';

export interface ObservedMetric {
  readonly name: string;
  readonly min: string;
  readonly max: string;
  readonly latest: string;
}

export interface LoggedValue {
  /** RFC 3339, as GetObservationLog answers it. */
  readonly time: string;
  readonly name: string;
  readonly value: string;
}

const numberOf = (text: string): number | undefined => {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
};

/** Per metric, in the order the metrics first appear. */
export function summarizeLogs(logs: readonly LoggedValue[]): ObservedMetric[] {
  const byName = new Map<
    string,
    { latestTime: number; latest: string; min?: number; max?: number; minText: string; maxText: string }
  >();
  for (const log of logs) {
    const time = Date.parse(log.time);
    let entry = byName.get(log.name);
    if (entry === undefined) {
      entry = {
        latestTime: Number.NEGATIVE_INFINITY,
        latest: UNAVAILABLE_METRIC_VALUE,
        minText: UNAVAILABLE_METRIC_VALUE,
        maxText: UNAVAILABLE_METRIC_VALUE,
      };
      byName.set(log.name, entry);
    }
    if (!(time < entry.latestTime)) {
      entry.latestTime = Number.isNaN(time) ? entry.latestTime : time;
      entry.latest = log.value;
    }
    const n = numberOf(log.value);
    if (n === undefined) continue;
    if (entry.min === undefined || n < entry.min) {
      entry.min = n;
      entry.minText = log.value;
    }
    if (entry.max === undefined || n > entry.max) {
      entry.max = n;
      entry.maxText = log.value;
    }
  }
  return [...byName].map(([name, e]) => ({ name, min: e.minText, max: e.maxText, latest: e.latest }));
}

/** The metric's value by its strategy: min and max fall back to the latest when no value was a number. */
export function valueByStrategy(metric: ObservedMetric, strategy: MetricStrategy | undefined): string {
  switch (strategy) {
    case 'min':
      return metric.min === UNAVAILABLE_METRIC_VALUE ? metric.latest : metric.min;
    case 'max':
      return metric.max === UNAVAILABLE_METRIC_VALUE ? metric.latest : metric.max;
    case 'latest':
      return metric.latest;
    default:
      return '';
  }
}

/** The objective's value of an observation, or undefined when it has none that is a number. */
export function objectiveValue(
  observation: readonly ObservedMetric[],
  metricName: string,
  strategy: MetricStrategy | undefined,
): { text: string; value: number } | undefined {
  const metric = observation.find((m) => m.name === metricName);
  if (!metric) return undefined;
  const text = valueByStrategy(metric, strategy);
  const value = numberOf(text);
  return value === undefined ? undefined : { text, value };
}

export const isBetter = (type: ObjectiveType, candidate: number, best: number): boolean =>
  type === 'minimize' ? candidate < best : candidate > best;

export const meetsGoal = (type: ObjectiveType, value: number, goal: number): boolean =>
  type === 'minimize' ? value <= goal : value >= goal;
