// The ExperimentSubmitter on Kafka: the last submission of the name is read back from
// experiment.experiments (its partition, to the end, by key) and the next generation published
// there. Two submissions of one name at the same moment can both take the same generation; the
// trial controller keeps the first one its partition holds, so every instance agrees on it.
import { randomUUID } from 'node:crypto';
import { type Bus, type EventProducer, readTopic } from '../../../../shared/bus/index.ts';
import type { Clock } from '../../../../shared/clock.ts';
import type { ExperimentSubmitter } from '../../common/submissions.ts';
import { decideSubmission } from '../definition/submission.ts';

async function lastSubmission(bus: Bus, topic: string, name: string) {
  let last: { generation: number; yaml: string } | undefined;
  const reader = await readTopic(bus, {
    topic,
    from: 'beginning',
    until: 'end',
    key: name,
    onEvent: (event) => {
      if (event.eventType !== 'ExperimentSubmitted') return;
      if (last === undefined || event.payload.generation > last.generation)
        last = { generation: event.payload.generation, yaml: event.payload.yaml };
    },
  });
  await reader.done;
  return last;
}

export function createExperimentSubmissions(deps: {
  readonly bus: Bus;
  readonly producer: Pick<EventProducer, 'publish'>;
  /** experiment.experiments (after KAFKA_TOPIC_PREFIX). */
  readonly topic: string;
  readonly clock: Clock;
}): ExperimentSubmitter {
  return {
    submit: async (yaml, source) => {
      const context = () => ({ source, eventId: randomUUID(), now: deps.clock.now() });
      const read = decideSubmission(yaml, undefined, context());
      if (read.kind === 'refused') return { accepted: false, problems: read.problems };
      const name = read.kind === 'submit' ? read.event.experiment_name : read.name;
      const decision = decideSubmission(yaml, await lastSubmission(deps.bus, deps.topic, name), context());
      if (decision.kind === 'refused') return { accepted: false, problems: decision.problems };
      if (decision.kind === 'unchanged')
        return { accepted: true, name, generation: decision.generation, unchanged: true };
      await deps.producer.publish(deps.topic, [
        { eventType: 'ExperimentSubmitted', key: name, payload: decision.event },
      ]);
      return { accepted: true, name, generation: decision.event.generation, unchanged: false };
    },
  };
}
