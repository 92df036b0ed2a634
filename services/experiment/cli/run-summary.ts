// How `experiment run` follows and ends: a progress line for each change, the last line for
// `--output json`, a line for people, and the exit code, all from the experiment's status as
// GET /api/experiments/{name}/status answers it (the trial controller's ExperimentStatusChanged).
import type { EventPayloads } from '../../../schemas/gen/events.ts';

type Status = Pick<
  EventPayloads<Date | number>['ExperimentStatusChanged'],
  'experiment_name' | 'condition' | 'reason' | 'message' | 'trials' | 'best_trial'
>;

export interface RunSummary {
  readonly status: string;
  readonly bestTrial: {
    readonly name: string;
    /** Katib's assignments, values as assigned (text, as ParameterAssignment carries them). */
    readonly parameters: Readonly<Record<string, string>>;
    readonly objective: number;
  } | null;
  readonly trials: {
    readonly succeeded: number;
    /** Katib's failed count: FAILED and METRICSUNAVAILABLE trials. */
    readonly failed: number;
    readonly earlyStopped: number;
    readonly killed: number;
  };
}

export const EXIT_CODES = Object.freeze({ succeeded: 0, failed: 1, refused: 2, unreachable: 3 });

export function runSummary(status: Status): RunSummary {
  const best = status.best_trial;
  const objective = best === null ? Number.NaN : Number(best.objective);
  return {
    status: status.condition,
    bestTrial:
      best === null || !Number.isFinite(objective)
        ? null
        : {
            name: best.name,
            parameters: Object.fromEntries(best.assignments.map((a) => [a.name, a.value])),
            objective,
          },
    trials: {
      succeeded: status.trials.succeeded,
      failed: status.trials.failed + status.trials.metrics_unavailable,
      earlyStopped: status.trials.early_stopped,
      killed: status.trials.killed,
    },
  };
}

/** Whether a status ends the wait of `run`. */
export const isFinal = (status: Pick<Status, 'condition'>): boolean =>
  status.condition === 'Succeeded' || status.condition === 'Failed';

export const exitCodeOf = (status: Pick<Status, 'condition'>): number =>
  status.condition === 'Succeeded' ? EXIT_CODES.succeeded : EXIT_CODES.failed;

/** The line for people: how it ended, why, the best trial and the counts. */
export function summaryText(status: Status): string {
  const s = runSummary(status);
  const best =
    s.bestTrial === null
      ? 'no best trial'
      : `best trial ${s.bestTrial.name}: ${Object.entries(s.bestTrial.parameters)
          .map(([name, value]) => `${name}=${value}`)
          .join(' ')} → ${s.bestTrial.objective}`;
  const t = s.trials;
  return `experiment ${status.experiment_name} ${s.status} (${status.reason}: ${status.message}); ${best}; trials: ${t.succeeded} succeeded, ${t.failed} failed, ${t.earlyStopped} early-stopped, ${t.killed} killed`;
}

/** The status endpoint's answer (ExperimentStatusView): the latest submission and its status. */
export interface StatusAnswer extends Omit<Status, 'experiment_name' | 'condition'> {
  readonly name: string;
  readonly generation: number;
  readonly statusGeneration: number;
  /** '' before the controller wrote a status. */
  readonly condition: string;
}

export const asStatus = (answer: StatusAnswer): Status => ({
  ...answer,
  experiment_name: answer.name,
  condition: answer.condition as Status['condition'],
});

/** The run is over once the status of the submitted generation (or a later one) is final. */
export const finishedFor = (answer: StatusAnswer, generation: number): boolean =>
  answer.statusGeneration >= generation && isFinal({ condition: answer.condition as Status['condition'] });

/** One line per change: where the experiment stands and its best trial so far. */
export function progressLine(answer: StatusAnswer): string {
  const t = answer.trials;
  const best =
    answer.best_trial === null ? '' : `; best ${answer.best_trial.name} ${answer.best_trial.objective}`;
  const condition = answer.condition === '' ? 'Submitted' : answer.condition;
  return `${condition}: ${t.pending} pending, ${t.running} running, ${t.succeeded} succeeded, ${t.failed + t.metrics_unavailable} failed, ${t.early_stopped} early-stopped, ${t.killed} killed${best}`;
}
