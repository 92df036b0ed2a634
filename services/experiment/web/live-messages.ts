// What the live page is shown of each event on the topics it follows.
import type { ConsumedEvent } from '../../../shared/bus/index.ts';

export interface LiveMessage {
  /** SSE event name: observations, status, rules, trials. */
  readonly type: 'observations' | 'status' | 'rules' | 'trials';
  readonly experiment: string | undefined;
  readonly trial: string | undefined;
  readonly data: unknown;
}

/** What an event of those topics shows a live page; undefined for events it does not show. */
export function toLiveMessage(event: ConsumedEvent): LiveMessage | undefined {
  switch (event.eventType) {
    case 'ObservationLogReported': {
      const p = event.payload;
      return {
        type: 'observations',
        experiment: undefined,
        trial: p.trial_name,
        data: {
          trial: p.trial_name,
          logs: p.metric_logs.map((l) => ({ time: l.time_stamp, metric: l.metric_name, value: l.value })),
        },
      };
    }
    case 'TrialStatusChanged': {
      const p = event.payload;
      const experiment = p.experiment_name === '' ? undefined : p.experiment_name;
      return {
        type: 'status',
        experiment,
        trial: p.trial_name,
        data: {
          trial: p.trial_name,
          experiment: p.experiment_name,
          condition: p.condition,
          reason: p.reason,
          message: p.message,
          atMs: p.occurred_at.getTime(),
        },
      };
    }
    case 'EarlyStoppingRulesIssued': {
      const p = event.payload;
      return {
        type: 'rules',
        experiment: p.experiment_name,
        trial: undefined,
        data: {
          experiment: p.experiment_name,
          objectiveMetric: p.objective_metric,
          objectiveType: p.objective_type,
          rules: p.rules.map((r) => ({
            name: r.name,
            value: r.value,
            comparison: r.comparison,
            startStep: r.start_step,
          })),
        },
      };
    }
    case 'SuggestionsIssued': {
      const p = event.payload;
      return {
        type: 'trials',
        experiment: p.experiment_name,
        trial: undefined,
        data: { experiment: p.experiment_name, trials: p.trials.map((t) => t.name).filter((n) => n !== '') },
      };
    }
    case 'TrialsCreated': {
      // The trial controller's new trials, as soon as they exist.
      const p = event.payload;
      return {
        type: 'trials',
        experiment: p.experiment_name,
        trial: undefined,
        data: { experiment: p.experiment_name, trials: p.trials.map((t) => t.name) },
      };
    }
    default:
      return undefined;
  }
}
