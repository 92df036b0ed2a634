// The ControllerStateStore on the compacted topic experiment.nas-controller-state, keyed by
// experiment: a save is a NasControllerStateSaved event (acknowledged by the broker before it
// resolves); every instance follows the topic from its beginning, knows where each key's latest
// state is, and before answering `latest` reads up to the topic's end as it is then, so it sees
// every acknowledged save, its own or another instance's. A state is up to 12 MiB and an experiment
// keeps its key after it ends: the states themselves are kept up to `cacheBytes`, the most recently
// used first, and one that was let go is read back from the topic when asked for again.
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

/** States kept in memory by default: a few of the largest (12 MiB) or hundreds of typical ones. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

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
  /** Bytes of states kept in memory (the newest or most recently used); default 64 MiB. */
  readonly cacheBytes?: number;
}): Promise<KafkaControllerStateStore> {
  const { bus, producer, clock, catchUpTimeoutMs } = options;
  const TOPIC = options.topic ?? TOPICS.nasControllerState.name;
  const logger = options.logger.child({ component: 'controller-state-store' });
  const cacheBytes = options.cacheBytes ?? DEFAULT_CACHE_BYTES;
  /** Every key with a state, and the offset of its latest save. */
  const latestOffsets = new Map<string, bigint>();
  /** States in memory, least recently used first (a Map keeps insertion order). */
  const cache = new Map<string, Uint8Array>();
  let cachedBytes = 0;
  const forget = (key: string): void => {
    const state = cache.get(key);
    if (state === undefined) return;
    cache.delete(key);
    cachedBytes -= state.byteLength;
  };
  const remember = (key: string, state: Uint8Array): void => {
    forget(key);
    cache.set(key, state);
    cachedBytes += state.byteLength;
    for (const [oldest, evicted] of cache) {
      if (cachedBytes <= cacheBytes || oldest === key) break;
      cache.delete(oldest);
      cachedBytes -= evicted.byteLength;
    }
  };
  // A plain Uint8Array, as every store returns (the decoder hands a Buffer over the fetched batch).
  const stateOf = (payload: { state: Uint8Array }): Uint8Array => Uint8Array.from(payload.state);

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
      latestOffsets.set(event.key, event.offset);
      remember(event.key, stateOf(event.payload));
    },
    onUndecodable: (record, reason) => {
      const key = record.key?.toString('utf8');
      if (key === undefined) return;
      // A tombstone deletes the state; a state that cannot be read is no state (the controller is rebuilt).
      latestOffsets.delete(key);
      forget(key);
      if (record.value !== null)
        logger.warn(
          { experiment: key, partition: record.partition, offset: record.offset.toString(), reason },
          'controller state does not decode; treated as none',
        );
    },
  });

  /** A state let go from memory, read back from the topic (its key's records, up to the end). */
  async function readBack(experiment: string, offset: bigint): Promise<Uint8Array | undefined> {
    let found: Uint8Array | undefined;
    const again = await readTopic(bus, {
      topic: TOPIC,
      from: 'beginning',
      until: 'end',
      key: experiment,
      onEvent: (event) => {
        if (event.eventType === 'NasControllerStateSaved' && event.offset === offset)
          found = stateOf(event.payload);
      },
      onUndecodable: () => undefined,
    });
    await again.done;
    if (found === undefined)
      logger.warn(
        { experiment, offset: offset.toString() },
        'controller state not found again; treated as none',
      );
    return found;
  }
  await reader.joined;
  return {
    async latest(experiment) {
      await reader.caughtUp(catchUpTimeoutMs);
      const offset = latestOffsets.get(experiment);
      if (offset === undefined) return undefined;
      const cached = cache.get(experiment);
      if (cached !== undefined) {
        remember(experiment, cached);
        return cached;
      }
      const state = await readBack(experiment, offset);
      // Kept only if no newer save arrived meanwhile (that one is in memory already).
      if (state !== undefined && latestOffsets.get(experiment) === offset) remember(experiment, state);
      return latestOffsets.get(experiment) === offset ? state : cache.get(experiment);
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
