// Katib's ParameterSpecs, trials and assignments to and from the samplers' numeric view
// (./space.ts). Every check of a search space lives here, so each algorithm answers a bad
// space with the same message naming the parameter.

import type { ExperimentSpec__Output } from '../../../proto/gen/api/v1/beta1/ExperimentSpec.ts';
import type { ParameterAssignment } from '../../../proto/gen/api/v1/beta1/ParameterAssignment.ts';
import type { ParameterSpec__Output } from '../../../proto/gen/api/v1/beta1/ParameterSpec.ts';
import type { Trial__Output } from '../../../proto/gen/api/v1/beta1/Trial.ts';
import { invalidArgument } from '../../../shared/errors.ts';
import { formatDouble, formatInt, parseFinite } from '../common/katib-numbers.ts';
import type { Dimension, Distribution, Observation, Point } from './space.ts';
import { snap } from './values.ts';

const DISTRIBUTIONS: Readonly<Record<string, Distribution>> = {
  DISTRIBUTION_UNSPECIFIED: 'uniform',
  UNIFORM: 'uniform',
  LOG_UNIFORM: 'log-uniform',
  NORMAL: 'normal',
  LOG_NORMAL: 'log-normal',
};

/** The experiment's parameters as dimensions, in spec order; INVALID_ARGUMENT naming the parameter. */
export function toDimensions(parameters: readonly ParameterSpec__Output[]): Dimension[] {
  if (parameters.length === 0)
    throw invalidArgument('experiment.spec.parameter_specs: no parameters to search');
  const seen = new Set<string>();
  return parameters.map((parameter) => {
    const { name } = parameter;
    if (name === '') throw invalidArgument('experiment.spec.parameter_specs: a parameter has no name');
    // goptuna's message (Katib's other services silently keep the last one).
    if (seen.has(name)) throw invalidArgument(`Detect duplicated parameter name: ${name}`);
    seen.add(name);
    return toDimension(parameter);
  });
}

function toDimension(parameter: ParameterSpec__Output): Dimension {
  const { name, parameter_type: type } = parameter;
  const space = parameter.feasible_space;
  const fail = (problem: string) => invalidArgument(`parameter ${name}: ${problem}`);
  if (type === 'CATEGORICAL' || type === 'DISCRETE') {
    const choices = space?.list ?? [];
    if (choices.length === 0) throw fail(`${type} needs a non-empty feasible_space.list`);
    const unique = new Set<string>();
    for (const choice of choices) {
      if (unique.has(choice)) throw fail(`value "${choice}" is listed twice`);
      unique.add(choice);
      if (type === 'DISCRETE' && parseFinite(choice) === undefined)
        throw fail(`DISCRETE value "${choice}" is not a number`);
    }
    return { kind: 'categorical', name, choices: [...choices], numeric: type === 'DISCRETE' };
  }
  if (type !== 'DOUBLE' && type !== 'INT')
    throw fail(`unsupported parameter type ${String(type)} (DOUBLE, INT, DISCRETE or CATEGORICAL)`);

  const bound = (field: 'min' | 'max'): number => {
    const text = space?.[field] ?? '';
    if (text.trim() === '') throw fail(`${type} needs feasible_space.${field}`);
    const value = parseFinite(text);
    if (value === undefined) throw fail(`${field} "${text}" is not a number`);
    if (type === 'INT' && !Number.isSafeInteger(value))
      throw fail(`INT ${field} "${text}" is not a whole number`);
    return value;
  };
  const low = bound('min');
  const high = bound('max');
  if (low > high) throw fail(`min ${space!.min} is greater than max ${space!.max}`);

  const distributionName = String(space?.distribution ?? 'DISTRIBUTION_UNSPECIFIED');
  const distribution = DISTRIBUTIONS[distributionName];
  if (distribution === undefined) throw fail(`unknown distribution ${distributionName}`);
  if ((distribution === 'log-uniform' || distribution === 'log-normal') && low <= 0)
    throw fail(`${distributionName} needs min > 0 (min is ${space!.min})`);

  const stepText = (space?.step ?? '').trim();
  let step: number | undefined;
  if (stepText !== '') {
    step = parseFinite(stepText);
    if (step === undefined) throw fail(`step "${stepText}" is not a number`);
    if (step <= 0) throw fail(`step ${stepText} must be greater than zero`);
  }
  if (type === 'INT') {
    // Katib's own tests send INT steps below 1 (0.8, 0.01): the only whole step they can mean is 1.
    if (step !== undefined && step > 1 && !Number.isInteger(step))
      throw fail(`INT step ${stepText} is not a whole number`);
    return { kind: 'int', name, low, high, step: step === undefined || step < 1 ? 1 : step, distribution };
  }
  return step === undefined
    ? { kind: 'float', name, low, high, distribution }
    : { kind: 'float', name, low, high, step, distribution };
}

/** A value as Katib's clients read it: INT whole, DOUBLE shortest round-trip, lists exactly as listed. */
export function formatValue(dimension: Dimension, value: number | string): string {
  if (dimension.kind === 'categorical') return String(value);
  if (typeof value !== 'number') throw new TypeError(`${dimension.name}: expected a number, got ${value}`);
  return dimension.kind === 'int' ? formatInt(value) : formatDouble(value);
}

export function toAssignments(dimensions: readonly Dimension[], point: Point): ParameterAssignment[] {
  return dimensions.map((dimension, i) => ({
    name: dimension.name,
    value: formatValue(dimension, point[i]!),
  }));
}

/**
 * A trial's assignments as a point of this space, or undefined when they do not fit it (a parameter
 * missing, a number out of range or unreadable, a value not in the list).
 */
export function toPoint(
  dimensions: readonly Dimension[],
  assignments: ReadonlyMap<string, string>,
): Point | undefined {
  const point: (number | string)[] = [];
  for (const dimension of dimensions) {
    const text = assignments.get(dimension.name);
    if (text === undefined) return undefined;
    if (dimension.kind === 'categorical') {
      if (dimension.choices.includes(text)) point.push(text);
      else {
        // DISCRETE "2.0" and "2" are the same number.
        const value = dimension.numeric ? parseFinite(text) : undefined;
        const match = dimension.choices.find(
          (choice) => value !== undefined && parseFinite(choice) === value,
        );
        if (match === undefined) return undefined;
        point.push(match);
      }
      continue;
    }
    const value = readFinite(text);
    const tolerance = 1e-9 * Math.max(1, Math.abs(dimension.low), Math.abs(dimension.high));
    if (value === undefined || value < dimension.low - tolerance || value > dimension.high + tolerance)
      return undefined;
    point.push(dimension.kind === 'int' || dimension.step !== undefined ? snap(dimension, value) : value);
  }
  return point;
}

export type Direction = 'MINIMIZE' | 'MAXIMIZE';

export interface Objective {
  /** Undefined when the request does not say (proto3 UNKNOWN). */
  readonly direction: Direction | undefined;
  readonly metricName: string;
  /** Metrics Katib's collector gathers besides the objective (the further objectives of nsga2). */
  readonly additionalMetricNames?: readonly string[];
}

export function readObjective(spec: ExperimentSpec__Output | null): Objective {
  const type = spec?.objective?.type;
  return {
    direction: type === 'MINIMIZE' || type === 'MAXIMIZE' ? type : undefined,
    metricName: spec?.objective?.objective_metric_name ?? '',
    additionalMetricNames: spec?.objective?.additional_metric_names ?? [],
  };
}

export type Condition =
  | 'CREATED'
  | 'RUNNING'
  | 'SUCCEEDED'
  | 'KILLED'
  | 'FAILED'
  | 'METRICSUNAVAILABLE'
  | 'EARLYSTOPPED'
  | 'UNKNOWN';

/** Katib's TrialConditionType names, in api.proto's order (the index is the number). */
export const TRIAL_CONDITIONS: readonly Condition[] = [
  'CREATED',
  'RUNNING',
  'SUCCEEDED',
  'KILLED',
  'FAILED',
  'METRICSUNAVAILABLE',
  'EARLYSTOPPED',
  'UNKNOWN',
];
const CONDITIONS = new Set<string>(TRIAL_CONDITIONS);

/** One trial of the request, read once for every algorithm. */
export interface TrialRecord {
  readonly name: string;
  readonly condition: Condition;
  readonly startTime: string;
  /** status.completion_time as sent ('' when absent). */
  readonly completionTime: string;
  readonly assignments: ReadonlyMap<string, string>;
  /** Undefined when the assignments do not fit the search space. */
  readonly point: Point | undefined;
  /** The objective value (as reported, not negated), when the trial counts as completed. */
  readonly objective: number | undefined;
  /** The objective as a loss to minimise, when the trial counts as completed. */
  readonly loss: number | undefined;
  /** The observation's metrics as reported (the request's own list, not copied): further objectives. */
  readonly metrics: readonly { readonly name: string; readonly value: string }[];
}

export interface Trials {
  readonly records: readonly TrialRecord[];
  /** Completed trials (SUCCEEDED or EARLYSTOPPED with a numeric objective), in request order. */
  readonly history: readonly Observation[];
  /** Points of trials still CREATED or RUNNING. */
  readonly pending: readonly Point[];
  /** Points of every trial that fits the space, whatever its state (to avoid repeating any). */
  readonly all: readonly Point[];
}

/**
 * Reads the request's trials as Katib's services do: a trial counts when SUCCEEDED or EARLYSTOPPED
 * and its observation carries the objective metric (the trial's own objective name, else the
 * experiment's; the last matching metric wins) with a numeric value.
 */
export function readTrials(
  trials: readonly Trial__Output[],
  dimensions: readonly Dimension[],
  objective: Objective,
): Trials {
  const records: TrialRecord[] = [];
  const history: Observation[] = [];
  const pending: Point[] = [];
  const all: Point[] = [];
  for (const trial of trials) {
    const rawCondition = String(trial.status?.condition ?? 'CREATED');
    const condition = (CONDITIONS.has(rawCondition) ? rawCondition : 'UNKNOWN') as Condition;
    const assignments = new Map<string, string>();
    for (const a of trial.spec?.parameter_assignments?.assignments ?? []) assignments.set(a.name, a.value);
    const point = toPoint(dimensions, assignments);
    const metrics = trial.status?.observation?.metrics ?? [];
    let value: number | undefined;
    if (condition === 'SUCCEEDED' || condition === 'EARLYSTOPPED') {
      const metricName = trial.spec?.objective?.objective_metric_name || objective.metricName;
      const metric = metrics.findLast((m) => m.name === metricName);
      value = metric === undefined ? undefined : readFinite(metric.value);
    }
    if (value !== undefined && objective.direction === undefined) {
      throw invalidArgument(
        `experiment.spec.objective.type must be MINIMIZE or MAXIMIZE to use the result of trial ${trial.name}`,
      );
    }
    const loss = value === undefined ? undefined : objective.direction === 'MAXIMIZE' ? -value : value;
    records.push({
      name: trial.name,
      condition,
      startTime: trial.status?.start_time ?? '',
      completionTime: trial.status?.completion_time ?? '',
      assignments,
      point,
      objective: value,
      loss,
      metrics,
    });
    if (point === undefined) continue;
    all.push(point);
    if (loss !== undefined) history.push({ point, loss });
    else if (condition === 'CREATED' || condition === 'RUNNING') pending.push(point);
  }
  return { records, history, pending, all };
}

/**
 * parseFinite for the numbers of every trial of every request: a plain decimal (what Katib's
 * clients and this service write) is read by Number() without parseFinite's Python-grammar
 * pattern, which took a tenth of a TPE call at 200 trials; anything else goes through it.
 */
export function readFinite(text: string): number | undefined {
  if (PLAIN_DECIMAL.test(text)) {
    const value = Number(text);
    if (Number.isFinite(value)) return value;
  }
  return parseFinite(text);
}

/** Python's float() and Number() read these alike (no blanks, underscores, hex or words). */
const PLAIN_DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
