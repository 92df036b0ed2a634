// What the trial controller knows, folded from the topics: experiments (experiment.experiments:
// submissions, its own status and TrialsCreated records), and per trial its assignments
// (experiment.trial-assignments), runs (experiment.trial-runs, experiment.runners) and conditions
// (experiment.trial-status). Topics are read in no common order, so every fold is written to give
// the same state whatever order the topics interleave in: attempts only go up, a finished trial
// stays finished, and each event is counted once (by its id).
//
// Leases: a run's lease ends `leaseMs` after the controller last *read* its start or a heartbeat
// listing it, on its own clock (the read time is what the adapter passes in); a restart reads
// everything again, so every lease starts afresh then.
import type { EventPayloads } from '../../../../schemas/gen/events.ts';
import type { ExperimentDefinition, Setting } from '../definition/definition.ts';
import { problemsText } from '../definition/definition.ts';
import { readExperiment } from '../definition/read-experiment.ts';
import { statusKeyOf } from './decisions.ts';
import {
  canMoveTrial,
  type ExperimentCondition,
  FINISHED,
  TRIAL_REASONS,
  type TrialCondition,
} from './lifecycle.ts';
import type { ObservedMetric } from './observation.ts';

type Payload<T extends keyof EventPayloads> = EventPayloads<Date | number>[T];
const ms = (t: Date | number): number => (typeof t === 'number' ? t : t.getTime());

export interface Assignment {
  readonly name: string;
  readonly value: string;
}

export interface RunStart {
  readonly attempt: number;
  readonly runner: string;
  readonly host: string;
  readonly atMs: number;
}

export interface RunEnd {
  readonly attempt: number;
  readonly phase: 'EXITED' | 'KILLED' | 'RELEASED';
  readonly runner: string;
  readonly exitCode: number | null;
  readonly signal: string;
  readonly stderrTail: string;
  readonly message: string;
}

export interface TrialRecord {
  readonly name: string;
  experiment: string;
  /** Position in its experiment (0-based), -1 while its TrialsCreated is not read yet. */
  order: number;
  assignments: readonly Assignment[];
  labels: Readonly<Record<string, string>>;
  condition: TrialCondition;
  reason: string;
  message: string;
  /** Runs lost with their runner (CREATED again with reason RunnerLost). */
  lostRuns: number;
  /** The latest assigned attempt (the run's fencing epoch); 0 before the first assignment. */
  attempt: number;
  notAfter: number;
  /** The current attempt's start and end, when read. */
  started: RunStart | undefined;
  ended: RunEnd | undefined;
  leaseUntil: number;
  firstStartMs: number | undefined;
  finishedAtMs: number | undefined;
  readonly statusEvents: Set<string>;
}

export interface ExperimentRecord {
  readonly name: string;
  generation: number;
  yaml: string;
  source: string;
  definition: ExperimentDefinition | undefined;
  /** Why the stored YAML does not read (a newer release refusing an old file); '' when it does. */
  unreadable: string;
  submittedAtMs: number;
  /** The last status the controller wrote; undefined before its first. */
  condition: ExperimentCondition | undefined;
  reason: string;
  message: string;
  statusGeneration: number;
  /** The last status written, minus ids and times: a status is written again only when this changes. */
  statusKey: string;
  readonly trialNames: string[];
  algorithmSettings: readonly Setting[];
  totalRequests: number;
  readonly createdEvents: Set<string>;
}

export class World {
  readonly experiments = new Map<string, ExperimentRecord>();
  readonly trials = new Map<string, TrialRecord>();
  /** Observations read back for finished trials (not from the topics: asked again after a restart). */
  readonly observations = new Map<string, readonly ObservedMetric[]>();
  private readonly leaseMs: number;

  constructor(options: { readonly leaseMs: number }) {
    this.leaseMs = options.leaseMs;
  }

  trial(name: string): TrialRecord {
    let record = this.trials.get(name);
    if (record === undefined) {
      record = {
        name,
        experiment: '',
        order: -1,
        assignments: [],
        labels: {},
        condition: 'CREATED',
        reason: '',
        message: '',
        lostRuns: 0,
        attempt: 0,
        notAfter: 0,
        started: undefined,
        ended: undefined,
        leaseUntil: 0,
        firstStartMs: undefined,
        finishedAtMs: undefined,
        statusEvents: new Set(),
      };
      this.trials.set(name, record);
    }
    return record;
  }

  trialsOf(experiment: ExperimentRecord): TrialRecord[] {
    return experiment.trialNames.map((name) => this.trial(name));
  }

  submitted(p: Payload<'ExperimentSubmitted'>): void {
    const known = this.experiments.get(p.experiment_name);
    if (known && known.generation >= p.generation) return;
    const read = readExperiment(p.yaml);
    const fields = {
      generation: p.generation,
      yaml: p.yaml,
      source: p.source,
      definition: read.ok ? read.definition : undefined,
      unreadable: read.ok ? '' : problemsText(read.problems),
    };
    if (known) {
      Object.assign(known, fields);
      return;
    }
    this.experiments.set(p.experiment_name, {
      name: p.experiment_name,
      ...fields,
      submittedAtMs: ms(p.occurred_at),
      condition: undefined,
      reason: '',
      message: '',
      statusGeneration: 0,
      statusKey: '',
      trialNames: [],
      algorithmSettings: [],
      totalRequests: 0,
      createdEvents: new Set(),
    });
  }

  experimentStatus(p: Payload<'ExperimentStatusChanged'>): void {
    const experiment = this.experiments.get(p.experiment_name);
    if (!experiment || p.condition === 'UNKNOWN' || p.generation < experiment.statusGeneration) return;
    experiment.condition = p.condition;
    experiment.reason = p.reason;
    experiment.message = p.message;
    experiment.statusGeneration = p.generation;
    experiment.statusKey = statusKeyOf(p);
  }

  trialsCreated(p: Payload<'TrialsCreated'>): void {
    const experiment = this.experiments.get(p.experiment_name);
    if (!experiment || experiment.createdEvents.has(p.event_id)) return;
    experiment.createdEvents.add(p.event_id);
    for (const created of p.trials) {
      if (experiment.trialNames.includes(created.name)) continue;
      const trial = this.trial(created.name);
      trial.experiment = p.experiment_name;
      trial.order = experiment.trialNames.length;
      trial.assignments = created.assignments;
      trial.labels = created.labels;
      experiment.trialNames.push(created.name);
    }
    experiment.algorithmSettings = p.algorithm_settings;
    experiment.totalRequests = Math.max(experiment.totalRequests, p.total_request_number);
  }

  assigned(p: Payload<'TrialAssigned'>): void {
    const trial = this.trial(p.trial_name);
    trial.experiment ||= p.experiment_name;
    if (p.attempt > trial.attempt) {
      trial.attempt = p.attempt;
      trial.started = undefined;
      trial.ended = undefined;
      trial.leaseUntil = 0;
    }
    if (p.attempt === trial.attempt) trial.notAfter = Math.max(trial.notAfter, ms(p.not_after));
  }

  /** A run's event, read at `readAtMs` (the controller's clock). */
  run(p: Payload<'TrialRunChanged'>, readAtMs: number): void {
    if (p.phase === 'CANCELLED' || p.phase === 'UNKNOWN') return;
    const trial = this.trial(p.trial_name);
    trial.experiment ||= p.experiment_name;
    if (p.attempt < trial.attempt) return;
    if (p.attempt > trial.attempt) {
      // Its TrialAssigned is on another topic, not read yet.
      trial.attempt = p.attempt;
      trial.started = undefined;
      trial.ended = undefined;
    }
    if (p.phase === 'STARTED') {
      if (trial.started?.runner !== p.runner_id)
        trial.started = { attempt: p.attempt, runner: p.runner_id, host: p.host, atMs: ms(p.occurred_at) };
      trial.firstStartMs ??= ms(p.occurred_at);
      trial.leaseUntil = Math.max(trial.leaseUntil, readAtMs + this.leaseMs);
      return;
    }
    trial.ended = {
      attempt: p.attempt,
      phase: p.phase,
      runner: p.runner_id,
      exitCode: p.exit_code,
      signal: p.signal,
      stderrTail: p.stderr_tail,
      message: p.message,
    };
  }

  heartbeat(p: Payload<'RunnerHeartbeat'>, readAtMs: number): void {
    for (const running of p.running) {
      const trial = this.trials.get(running.trial_name);
      if (trial && trial.attempt === running.attempt && trial.started?.runner === p.runner_id)
        trial.leaseUntil = Math.max(trial.leaseUntil, readAtMs + this.leaseMs);
    }
  }

  trialStatus(p: Payload<'TrialStatusChanged'>): void {
    if (p.condition === 'UNKNOWN') return;
    const trial = this.trial(p.trial_name);
    trial.experiment ||= p.experiment_name;
    if (trial.statusEvents.has(p.event_id)) return;
    trial.statusEvents.add(p.event_id);
    if (FINISHED.has(trial.condition) || !canMoveTrial(trial.condition, p.condition)) return;
    trial.condition = p.condition;
    trial.reason = p.reason;
    trial.message = p.message;
    if (p.condition === 'CREATED' && p.reason === TRIAL_REASONS.runnerLost) trial.lostRuns += 1;
    if (FINISHED.has(p.condition)) trial.finishedAtMs = ms(p.occurred_at);
  }
}

/** The events the world folds. */
export const WORLD_EVENTS = [
  'ExperimentSubmitted',
  'ExperimentStatusChanged',
  'TrialsCreated',
  'TrialAssigned',
  'TrialRunChanged',
  'RunnerHeartbeat',
  'TrialStatusChanged',
] as const;
export type WorldEventType = (typeof WORLD_EVENTS)[number];
export type WorldEvent = {
  [T in WorldEventType]: { readonly eventType: T; readonly payload: Payload<T> };
}[WorldEventType];

export const isWorldEvent = (event: { readonly eventType: string }): event is WorldEvent =>
  (WORLD_EVENTS as readonly string[]).includes(event.eventType);

/** Folds one event, read (or, for the controller's own, acknowledged) at `readAtMs`. */
export function fold(world: World, event: WorldEvent, readAtMs: number): void {
  switch (event.eventType) {
    case 'ExperimentSubmitted':
      world.submitted(event.payload);
      return;
    case 'ExperimentStatusChanged':
      world.experimentStatus(event.payload);
      return;
    case 'TrialsCreated':
      world.trialsCreated(event.payload);
      return;
    case 'TrialAssigned':
      world.assigned(event.payload);
      return;
    case 'TrialRunChanged':
      world.run(event.payload, readAtMs);
      return;
    case 'RunnerHeartbeat':
      world.heartbeat(event.payload, readAtMs);
      return;
    case 'TrialStatusChanged':
      world.trialStatus(event.payload);
      return;
  }
}
