// The read model of experiments and trials, derived from the events the service publishes: pure
// functions from an event to the changes a store applies. (A trial's best objective comes from the
// observation store's summary of the objective metric, kept as its logs are applied.)
import type { TypedEvent } from '../../../schemas/gen/events.ts';
import type {
  Assignment,
  EarlyStoppingRuleView,
  ObjectiveView,
  SearchParameterView,
} from '../common/read-model.ts';

/** One change to the read model; applying the same change again leaves the same state. */
export type ReadModelChange =
  | {
      readonly kind: 'experiment';
      readonly name: string;
      /** Empty strings leave what is known unchanged. */
      readonly algorithm: string;
      readonly objectiveMetric: string;
      readonly objectiveType: string;
      /** Undefined leaves the rules unchanged. */
      readonly rules?: readonly EarlyStoppingRuleView[];
      /** The `objectives` setting's; undefined leaves them unchanged. */
      readonly objectives?: readonly ObjectiveView[];
      /** The search space; undefined leaves it unchanged. */
      readonly parameters?: readonly SearchParameterView[];
      readonly atMs: number;
    }
  | {
      readonly kind: 'trial';
      readonly name: string;
      /** Empty leaves the experiment unchanged. */
      readonly experiment: string;
      /** Undefined leaves the assignments unchanged. */
      readonly assignments?: readonly Assignment[];
      /** The condition a request listed for the trial; shown while the store has no status of it. */
      readonly listedCondition?: string;
      readonly atMs: number;
    };

const ms = (t: Date | number): number => (typeof t === 'number' ? t : t.getTime());

/** The changes an event makes; events that do not concern the read model give none. */
export function readModelChanges(event: TypedEvent<Date | number>): ReadModelChange[] {
  switch (event.eventType) {
    case 'SuggestionsIssued': {
      const p = event.payload;
      const atMs = ms(p.occurred_at);
      const changes: ReadModelChange[] = [
        {
          kind: 'experiment',
          name: p.experiment_name,
          algorithm: p.algorithm_name,
          objectiveMetric: p.objective_metric,
          objectiveType: p.objective_type === 'UNKNOWN' ? '' : p.objective_type,
          // Events before v4 (read with empty lists) and NAS requests leave what is known.
          ...(p.objectives.length === 0
            ? {}
            : {
                objectives: p.objectives.flatMap((o) =>
                  o.type === 'UNKNOWN' ? [] : [{ metricName: o.metric_name, type: o.type }],
                ),
              }),
          ...(p.parameters.length === 0
            ? {}
            : {
                parameters: p.parameters.map((x) => ({
                  name: x.name,
                  parameterType: x.parameter_type,
                  min: x.min,
                  max: x.max,
                  step: x.step,
                  list: x.list,
                  distribution: x.distribution,
                })),
              }),
          atMs,
        },
      ];
      const listed = [
        ...p.trials.map((t) => ({ name: t.name, assignments: t.assignments, condition: t.condition })),
        // PBT names its trials in the reply.
        ...p.suggestions.map((s) => ({ name: s.trial_name, assignments: s.assignments, condition: '' })),
      ];
      for (const t of listed)
        if (t.name !== '')
          changes.push({
            kind: 'trial',
            name: t.name,
            experiment: p.experiment_name,
            assignments: t.assignments,
            ...(t.condition === '' ? {} : { listedCondition: t.condition }),
            atMs,
          });
      return p.experiment_name === '' ? [] : changes;
    }
    case 'EarlyStoppingRulesIssued': {
      const p = event.payload;
      if (p.experiment_name === '') return [];
      const atMs = ms(p.occurred_at);
      return [
        {
          kind: 'experiment',
          name: p.experiment_name,
          algorithm: '',
          objectiveMetric: p.objective_metric,
          objectiveType: p.objective_type === 'UNKNOWN' ? '' : p.objective_type,
          rules: p.rules.map((r) => ({
            name: r.name,
            value: r.value,
            comparison: r.comparison,
            startStep: r.start_step,
          })),
          atMs,
        },
        ...p.trials
          .filter((t) => t.name !== '')
          .map(
            (t): ReadModelChange => ({
              kind: 'trial',
              name: t.name,
              experiment: p.experiment_name,
              listedCondition: t.condition,
              atMs,
            }),
          ),
      ];
    }
    case 'TrialsCreated': {
      // The trial controller's own trials (experiments without Kubernetes): their parameters are
      // known from here, before any GetSuggestions request lists them (the last ones never are).
      const p = event.payload;
      if (p.experiment_name === '') return [];
      const atMs = ms(p.occurred_at);
      return p.trials.map(
        (t): ReadModelChange => ({
          kind: 'trial',
          name: t.name,
          experiment: p.experiment_name,
          assignments: t.assignments,
          atMs,
        }),
      );
    }
    case 'TrialStatusChanged': {
      // The status itself is the observation store's (trial_statuses, written in the same batch):
      // here only that the trial exists and, when the event says, its experiment.
      const p = event.payload;
      return [{ kind: 'trial', name: p.trial_name, experiment: p.experiment_name, atMs: ms(p.occurred_at) }];
    }
    default:
      return [];
  }
}

/**
 * The SuggestionsIssued events a rebuild applies, kept as they are read (in the topic's order): per
 * experiment its last complete event (trials_complete: every trial of the request) and every other
 * one. A complete event before the last says nothing the last does not, and is let go at once; the
 * others list changes, and a complete event written late (a slow call) must not hide one of them.
 */
export class SuggestionsFold<T> {
  private readonly kept: (T | undefined)[] = [];
  private readonly lastComplete = new Map<string, number>();

  add(experiment: string, complete: boolean, event: T): void {
    if (complete) {
      const earlier = this.lastComplete.get(experiment);
      if (earlier !== undefined) this.kept[earlier] = undefined;
      this.lastComplete.set(experiment, this.kept.length);
    }
    this.kept.push(event);
  }

  *events(): Generator<T> {
    for (const event of this.kept) if (event !== undefined) yield event;
  }
}
