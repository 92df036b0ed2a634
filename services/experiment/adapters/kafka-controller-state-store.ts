// The ControllerStateStore on the compacted topic experiment.nas-controller-state, keyed by
// experiment: a save is a NasControllerStateSaved event (acknowledged by the broker before it
// resolves); every instance follows the topic from its beginning, keeps the latest state per key,
// and before answering `latest` reads up to the topic's end as it is then, so it sees every
// acknowledged save, its own or another instance's.
import { randomUUID } from 'node:crypto';
import {
  type Bus,
  type EventProducer,
  readTopic,
  TOPICS,
  type TopicReader,
} from '../../../shared/bus/index.ts';
import type { Clock } from '../../../shared/clock.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { ControllerStateStore } from '../ports.ts';

export interface KafkaControllerStateStore extends ControllerStateStore {
  /** Stops following the topic. */
  close(): Promise<void>;
}

export async function openKafkaControllerStateStore(options: {
  readonly bus: Bus;
  readonly producer: Pick<EventProducer, 'publish'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long `latest` waits to read the topic to its end before UNAVAILABLE. */
  readonly catchUpTimeoutMs: number;
  /** The state topic; experiment.nas-controller-state unless a test brings its own. */
  readonly topic?: string;
}): Promise<KafkaControllerStateStore> {
  const { bus, producer, clock, catchUpTimeoutMs } = options;
  const TOPIC = options.topic ?? TOPICS.nasControllerState.name;
  const logger = options.logger.child({ component: 'controller-state-store' });
  const states = new Map<string, Uint8Array>();
  const reader: TopicReader = await readTopic(bus, {
    topic: TOPIC,
    from: 'beginning',
    until: 'follow',
    onEvent: (event) => {
      if (event.eventType !== 'NasControllerStateSaved' || event.key === null) {
        logger.warn(
          { eventType: event.eventType, offset: event.offset.toString() },
          'ignoring an unexpected event',
        );
        return;
      }
      // A plain Uint8Array, as every store returns (the decoder hands a Buffer over the fetched batch).
      states.set(event.key, Uint8Array.from(event.payload.state));
    },
    onUndecodable: (record, reason) => {
      const key = record.key?.toString('utf8');
      if (key === undefined) return;
      // A tombstone deletes the state; a state that cannot be read is no state (the controller is rebuilt).
      states.delete(key);
      if (record.value !== null)
        logger.warn(
          { experiment: key, partition: record.partition, offset: record.offset.toString(), reason },
          'controller state does not decode; treated as none',
        );
    },
  });
  await reader.joined;
  return {
    async latest(experiment) {
      await reader.caughtUp(catchUpTimeoutMs);
      return states.get(experiment);
    },
    async save(experiment, saved) {
      await producer.publish(TOPIC, [
        {
          eventType: 'NasControllerStateSaved',
          key: experiment,
          payload: {
            event_id: randomUUID(),
            occurred_at: clock.now(),
            experiment_name: experiment,
            algorithm_name: saved.algorithmName,
            trial_count: saved.trialCount,
            state: Buffer.from(saved.state),
          },
        },
      ]);
    },
    close: () => reader.stop(),
  };
}
