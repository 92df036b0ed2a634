// How `experiment run` ends: the last line for `--output json`, a line for people, and the exit
// code, all from the experiment's final ExperimentStatusChanged.
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
