// Every experiment's latest submission and status, followed on experiment.experiments by each
// instance that serves HTTP (each builds the same from the topic; nothing here another instance
// needs). A read first waits until what the topic held when it was asked was read.
import { type Bus, readTopic } from '../../../../shared/bus/index.ts';
import type { ExperimentStatuses, ExperimentStatusView } from '../../common/submissions.ts';

const NO_TRIALS = {
  pending: 0,
  running: 0,
  succeeded: 0,
  failed: 0,
  killed: 0,
  early_stopped: 0,
  metrics_unavailable: 0,
};

export async function followExperimentStatuses(deps: {
  readonly bus: Bus;
  /** experiment.experiments (after KAFKA_TOPIC_PREFIX). */
  readonly topic: string;
  readonly catchUpTimeoutMs: number;
}): Promise<ExperimentStatuses & { readonly ended: Promise<unknown>; stop(): Promise<void> }> {
  const views = new Map<string, ExperimentStatusView>();
  const reader = await readTopic(deps.bus, {
    topic: deps.topic,
    from: 'beginning',
    until: 'follow',
    onEvent: (event) => {
      if (event.eventType === 'ExperimentSubmitted') {
        const p = event.payload;
        const known = views.get(p.experiment_name);
        if (known && known.generation >= p.generation) return;
        views.set(p.experiment_name, {
          ...(known ?? {
            name: p.experiment_name,
            statusGeneration: 0,
            condition: '',
            reason: '',
            message: '',
            trials: NO_TRIALS,
            best_trial: null,
          }),
          generation: p.generation,
        });
      }
      if (event.eventType === 'ExperimentStatusChanged') {
        const p = event.payload;
        const known = views.get(p.experiment_name);
        if (!known || p.condition === 'UNKNOWN' || p.generation < known.statusGeneration) return;
        views.set(p.experiment_name, {
          ...known,
          statusGeneration: p.generation,
          condition: p.condition,
          reason: p.reason,
          message: p.message,
          trials: p.trials,
          best_trial: p.best_trial,
        });
      }
    },
  });
  return {
    latest: async (name) => {
      await reader.caughtUp(deps.catchUpTimeoutMs);
      return views.get(name);
    },
    ended: reader.done,
    stop: () => reader.stop(),
  };
}
