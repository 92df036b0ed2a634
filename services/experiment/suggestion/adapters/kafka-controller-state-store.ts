// The ControllerStateStore on the compacted topic experiment.nas-controller-state, keyed by
// experiment: a save is a NasControllerStateSaved event (acknowledged by the broker before it
// resolves); every instance follows the topic from its beginning, knows where each key's latest
// state is, and before answering `latest` reads up to the topic's end as it is then, so it sees
// every acknowledged save, its own or another instance's. A state is up to 12 MiB and an experiment
// keeps its key after it ends, so the states themselves are kept up to `cacheBytes`, the most
// recently used first, and only from saves made while this instance runs (an instance holds the
// states its experiments use, not every state on the topic). One not in memory is read back when
// asked for: from its key's partition, at the offset of its latest save known, taking the newest
// save of the key found from there (compaction only removes a save once a newer one follows it).
import { randomUUID } from 'node:crypto';
import {
  type Bus,
  type EventProducer,
  readTopic,
  TOPICS,
  type TopicReader,
} from '../../../../shared/bus/index.ts';
import type { Clock } from '../../../../shared/clock.ts';
import { beforeDeadline } from '../../../../shared/deadline.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ControllerStateStore } from '../ports.ts';

/** States kept in memory by default: a few of the largest (12 MiB) or hundreds of typical ones. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

interface SavedAt {
  readonly partition: number;
  readonly offset: bigint;
  /** The broker's timestamp: orders saves of a key on different partitions (the topic grew). */
  readonly timestamp: number;
}

/** Whether save `a` came after save `b` of the same key. */
const isNewer = (a: SavedAt, b: SavedAt): boolean =>
  a.partition === b.partition ? a.offset > b.offset : a.timestamp > b.timestamp;
const isSame = (a: SavedAt, b: SavedAt): boolean => a.partition === b.partition && a.offset === b.offset;

export interface KafkaControllerStateStore extends ControllerStateStore {
  /** Bytes of states held in memory now. */
  heldBytes(): number;
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
  /** Every key with a state, and where its latest save is. */
  const latestSaves = new Map<string, SavedAt>();
  /** States in memory, least recently used first (a Map keeps insertion order). */
  const cache = new Map<string, Uint8Array>();
  let cachedBytes = 0;
  let closed = false;
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
        remember(event.key, stateOf(event.payload));
      else forget(event.key);
    },
    onUndecodable: (record, reason) => {
      const key = record.key?.toString('utf8');
      if (key === undefined) return;
      const known = latestSaves.get(key);
      const at = { partition: record.partition, offset: record.offset, timestamp: record.timestamp };
      if (known !== undefined && !isNewer(at, known)) return;
      // A tombstone deletes the state; a state that cannot be read is no state (the controller is rebuilt).
      latestSaves.delete(key);
      forget(key);
      if (record.value !== null)
        logger.warn(
          { experiment: key, partition: record.partition, offset: record.offset.toString(), reason },
          'controller state does not decode; treated as none',
        );
    },
  });

  /** Read-backs running now: close() stops them. */
  const readingNow = new Set<TopicReader>();
  const stopQuietly = (again: TopicReader): void => {
    readingNow.delete(again);
    again.stop().catch((error: unknown) => logger.warn({ err: error }, 'cannot stop a read-back'));
  };

  /**
   * The newest save of `experiment` at or after `from`, read back from the topic: its state, or
   * undefined for a tombstone; null when the partition holds nothing of the key from there.
   * UNAVAILABLE when that is not done by `deadline`.
   */
  async function readBack(
    experiment: string,
    from: SavedAt,
    deadline: number,
  ): Promise<{ readonly at: SavedAt; readonly state: Uint8Array | undefined } | null> {
    let newest: { at: SavedAt; state: Uint8Array | undefined } | null = null;
    const late = () => `${TOPIC}: the state of ${experiment} was not read back within ${catchUpTimeoutMs} ms`;
    const starting = readTopic(bus, {
      topic: TOPIC,
      from,
      until: 'end',
      key: experiment,
      onEvent: (event) => {
        if (event.eventType === 'NasControllerStateSaved')
          newest = {
            at: { partition: event.partition, offset: event.offset, timestamp: event.timestamp },
            state: stateOf(event.payload),
          };
      },
      onUndecodable: (record) => {
        if (record.value === null)
          newest = {
            at: { partition: record.partition, offset: record.offset, timestamp: record.timestamp },
            state: undefined,
          };
      },
    });
    // A reader that starts after the deadline is stopped as soon as it exists.
    starting.then(
      (again) => {
        if (closed || Date.now() >= deadline) stopQuietly(again);
        else readingNow.add(again);
      },
      () => undefined,
    );
    const again = await beforeDeadline(starting, deadline, late);
    try {
      await beforeDeadline(again.done, deadline, late);
    } finally {
      stopQuietly(again);
    }
    return newest;
  }

  /** Concurrent misses of one key share one read back (and its deadline). */
  const readingBack = new Map<string, Promise<Uint8Array | undefined>>();
  async function readBackLatest(experiment: string, deadline: number): Promise<Uint8Array | undefined> {
    for (;;) {
      const known = latestSaves.get(experiment);
      if (known === undefined) return undefined;
      const cached = cache.get(experiment);
      if (cached !== undefined) return cached;
      const found = await readBack(experiment, known, deadline);
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
      if (found.state !== undefined && isSame(found.at, now)) remember(experiment, found.state);
      return found.state;
    }
  }

  await reader.joined;
  return {
    async latest(experiment) {
      const deadline = Date.now() + catchUpTimeoutMs;
      await reader.caughtUp(catchUpTimeoutMs);
      if (!latestSaves.has(experiment)) return undefined;
      const cached = cache.get(experiment);
      if (cached !== undefined) {
        remember(experiment, cached);
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
    heldBytes: () => cachedBytes,
    async close() {
      closed = true;
      for (const again of [...readingNow]) stopQuietly(again);
      await reader.stop();
    },
  };
}
