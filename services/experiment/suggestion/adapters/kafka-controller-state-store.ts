// The ControllerStateStore on the compacted topic experiment.nas-controller-state, keyed by
// experiment: a save is a NasControllerStateSaved event (acknowledged by the broker before it
// resolves); every instance follows the topic from its beginning, knows where each key's latest
// state is, and before answering `latest` reads up to the topic's end as it is then, so it sees
// every acknowledged save, its own or another instance's. States are held in memory up to
// `cacheBytes` (./controller-state-cache.ts), and only from saves made while this instance runs (an
// instance holds the states its experiments use, not every state on the topic); one not held is
// read back from the topic when asked for (./controller-state-read-back.ts).
import { randomUUID } from 'node:crypto';
import { type Bus, type EventProducer, readTopic, type TopicReader } from '../../../../shared/bus/index.ts';
import type { Clock } from '../../../../shared/clock.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ControllerStateStore } from '../ports.ts';
import { StateCache } from './controller-state-cache.ts';
import { createReadBacks, isNewer, isSame, type SavedAt, stateOf } from './controller-state-read-back.ts';

/** States kept in memory by default: a few of the largest (12 MiB) or hundreds of typical ones. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

export interface KafkaControllerStateStore extends ControllerStateStore {
  /** Bytes of states held in memory now. */
  heldBytes(): number;
  /** Rejects when following the topic stopped on an error (run it under a supervisor). */
  readonly ended: Promise<void>;
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
  /** The state topic: experiment.nas-controller-state (after KAFKA_TOPIC_PREFIX). */
  readonly topic: string;
  /** Bytes of states kept in memory (the newest or most recently used); default 64 MiB. */
  readonly cacheBytes?: number;
}): Promise<KafkaControllerStateStore> {
  const { bus, producer, clock, catchUpTimeoutMs } = options;
  const TOPIC = options.topic;
  const logger = options.logger.child({ component: 'controller-state-store' });
  /** Every key with a state, and where its latest save is. */
  const latestSaves = new Map<string, SavedAt>();
  const cache = new StateCache(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
  const readBacks = createReadBacks({ bus, topic: TOPIC, timeoutMs: catchUpTimeoutMs, logger });

  // Saves below these offsets were made before this instance started: their states are read back
  // when an experiment asks, not kept on the way.
  const replayEnds = new Map((await bus.watermarks(TOPIC)).map((w) => [w.partition, w.high]));
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
      const at = { partition: event.partition, offset: event.offset, timestamp: event.timestamp };
      const known = latestSaves.get(event.key);
      // Partitions are read side by side: an older save on another partition may come later.
      if (known !== undefined && !isNewer(at, known)) return;
      latestSaves.set(event.key, at);
      if (event.offset >= (replayEnds.get(event.partition) ?? 0n))
        cache.remember(event.key, stateOf(event.payload));
      else cache.forget(event.key);
    },
    onUndecodable: (record, reason) => {
      const key = record.key?.toString('utf8');
      if (key === undefined) return;
      const known = latestSaves.get(key);
      const at = { partition: record.partition, offset: record.offset, timestamp: record.timestamp };
      if (known !== undefined && !isNewer(at, known)) return;
      // A tombstone deletes the state; a state that cannot be read is no state (the controller is rebuilt).
      latestSaves.delete(key);
      cache.forget(key);
      if (record.value !== null)
        logger.warn(
          { experiment: key, partition: record.partition, offset: record.offset.toString(), reason },
          'controller state does not decode; treated as none',
        );
    },
  });

  /** Concurrent misses of one key share one read back (and its deadline). */
  const readingBack = new Map<string, Promise<Uint8Array | undefined>>();
  async function readBackLatest(experiment: string, deadline: number): Promise<Uint8Array | undefined> {
    for (;;) {
      const known = latestSaves.get(experiment);
      if (known === undefined) return undefined;
      const cached = cache.get(experiment);
      if (cached !== undefined) return cached;
      const found = await readBacks.newestFrom(experiment, known, deadline);
      const now = latestSaves.get(experiment);
      if (found === null) {
        // Nothing of the key from its latest known save on: the topic lost it (retention, deletion).
        if (now !== undefined && isNewer(now, known)) continue;
        logger.warn(
          { experiment, partition: known.partition, offset: known.offset.toString() },
          'controller state not found again; treated as none',
        );
        return undefined;
      }
      // The follower saw a newer save than the read back reached (or a tombstone): look again.
      if (now === undefined || isNewer(now, found.at)) continue;
      if (found.state !== undefined && isSame(found.at, now)) cache.remember(experiment, found.state);
      return found.state;
    }
  }

  await reader.joined;
  return {
    ended: reader.done,
    async latest(experiment) {
      const deadline = Date.now() + catchUpTimeoutMs;
      await reader.caughtUp(catchUpTimeoutMs);
      if (!latestSaves.has(experiment)) return undefined;
      const cached = cache.get(experiment);
      if (cached !== undefined) {
        cache.remember(experiment, cached);
        return cached;
      }
      let reading = readingBack.get(experiment);
      if (reading === undefined) {
        reading = readBackLatest(experiment, deadline).finally(() => readingBack.delete(experiment));
        readingBack.set(experiment, reading);
      }
      return reading;
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
    heldBytes: () => cache.bytes,
    async close() {
      readBacks.close();
      await reader.stop();
    },
  };
}
