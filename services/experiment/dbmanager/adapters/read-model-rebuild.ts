// A read model found empty while the persistence group has already committed some of its topics
// is rebuilt from those topics up to the commits (what the persistence consumer will not read
// again); the consumer then goes on from its commits. Trial statuses are the observation store's
// (the read model shows them from there): they go back into the store, which skips any it has.
import { type Bus, type ConsumedEvent, readTopic } from '../../../../shared/bus/index.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ExperimentTopics } from '../../common/bus-names.ts';
import type { ObservationChange, ObservationStore } from '../../common/ports.ts';
import { toChange } from '../observation-events.ts';
import { type ReadModelChange, readModelChanges, SuggestionsFold } from '../read-model.ts';
import type { ReadModelStore } from './read-model-store.ts';

/** Rebuilds the read model when it is empty; call it before the persistence consumer starts. */
export async function rebuildReadModelIfEmpty(deps: {
  readModel: ReadModelStore;
  store: Pick<ObservationStore, 'apply'>;
  bus: Bus;
  topics: Pick<ExperimentTopics, 'suggestions' | 'experiments' | 'earlyStoppingRules' | 'trialStatus'>;
  persistenceGroup: string;
  logger: Logger;
}): Promise<void> {
  const { bus, logger } = deps;
  const stores = { readModel: deps.readModel, store: deps.store };
  if (!(await deps.readModel.isEmpty())) return;
  const started = performance.now();
  // The topics the read model is made of (observations count through the observation store itself),
  // one after another, suggestions first: trials take their order from the requests.
  const { suggestions, experiments, earlyStoppingRules, trialStatus } = deps.topics;
  let events = 0;
  for (const topic of [suggestions.name, experiments.name, earlyStoppingRules.name, trialStatus.name])
    events += await rebuildFrom(bus, topic, deps.persistenceGroup, stores);
  if (events > 0)
    logger.info(
      { events, ms: Math.round(performance.now() - started) },
      'read model rebuilt from the topics',
    );
}

async function rebuildFrom(
  bus: Bus,
  topic: string,
  group: string,
  { readModel, store }: { readModel: ReadModelStore; store: Pick<ObservationStore, 'apply'> },
): Promise<number> {
  const committed = await bus.committedOffsets(group, topic);
  if (committed.size === 0) return 0;
  let pending: ReadModelChange[] = [];
  let statuses: ObservationChange[] = [];
  let events = 0;
  let flushing = Promise.resolve();
  const flush = (): Promise<void> => {
    const batch = pending;
    const stored = statuses;
    pending = [];
    statuses = [];
    flushing = flushing.then(async () => {
      if (stored.length > 0) await store.apply(stored);
      await readModel.apply(batch);
    });
    return flushing;
  };
  // Katib's controller sends every trial in each GetSuggestions request: see SuggestionsFold.
  const suggestions = new SuggestionsFold<ConsumedEvent>();
  const reader = await readTopic(bus, {
    topic,
    from: 'beginning',
    until: 'end',
    onEvent: async (event) => {
      if (event.offset >= (committed.get(event.partition) ?? 0n)) return;
      events++;
      if (event.eventType === 'SuggestionsIssued') {
        suggestions.add(event.key ?? '', event.payload.trials_complete, event);
        return;
      }
      if (event.eventType === 'TrialStatusChanged') statuses.push(toChange(event));
      pending.push(...readModelChanges(event));
      if (pending.length >= 1_000) await flush();
    },
  });
  await reader.done;
  for (const event of suggestions.events()) {
    pending.push(...readModelChanges(event));
    if (pending.length >= 1_000) await flush();
  }
  await flush();
  return events;
}
