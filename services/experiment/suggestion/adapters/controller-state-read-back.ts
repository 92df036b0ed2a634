// A controller state not held in memory is read back from the topic when asked for: from its key's
// partition, at the offset of its latest save known, taking the newest save of the key found from
// there (compaction only removes a save once a newer one follows it).
import { type Bus, readTopic, type TopicReader } from '../../../../shared/bus/index.ts';
import { beforeDeadline } from '../../../../shared/deadline.ts';
import type { Logger } from '../../../../shared/logger.ts';

/** Where a save of a key is on the topic. */
export interface SavedAt {
  readonly partition: number;
  readonly offset: bigint;
  /** The broker's timestamp: orders saves of a key on different partitions (the topic grew). */
  readonly timestamp: number;
}

/** Whether save `a` came after save `b` of the same key. */
export const isNewer = (a: SavedAt, b: SavedAt): boolean =>
  a.partition === b.partition ? a.offset > b.offset : a.timestamp > b.timestamp;
export const isSame = (a: SavedAt, b: SavedAt): boolean =>
  a.partition === b.partition && a.offset === b.offset;

/** A plain Uint8Array, as every store returns (the decoder hands a Buffer over the fetched batch). */
export const stateOf = (payload: { state: Uint8Array }): Uint8Array => Uint8Array.from(payload.state);

export interface ReadBacks {
  /**
   * The newest save of `experiment` at or after `from`: its state, or undefined for a tombstone;
   * null when the partition holds nothing of the key from there. UNAVAILABLE when that is not
   * done by `deadline`.
   */
  newestFrom(
    experiment: string,
    from: SavedAt,
    deadline: number,
  ): Promise<{ readonly at: SavedAt; readonly state: Uint8Array | undefined } | null>;
  /** Stops the read-backs running now; one that starts later is stopped as soon as it exists. */
  close(): void;
}

export function createReadBacks(options: {
  readonly bus: Bus;
  readonly topic: string;
  /** For the message when a read-back misses its deadline. */
  readonly timeoutMs: number;
  readonly logger: Logger;
}): ReadBacks {
  const { bus, topic, timeoutMs, logger } = options;
  /** Read-backs running now: close() stops them. */
  const readingNow = new Set<TopicReader>();
  let closed = false;
  const stopQuietly = (again: TopicReader): void => {
    readingNow.delete(again);
    again.stop().catch((error: unknown) => logger.warn({ err: error }, 'cannot stop a read-back'));
  };

  return {
    async newestFrom(experiment, from, deadline) {
      let newest: { at: SavedAt; state: Uint8Array | undefined } | null = null;
      const late = () => `${topic}: the state of ${experiment} was not read back within ${timeoutMs} ms`;
      const starting = readTopic(bus, {
        topic,
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
    },
    close() {
      closed = true;
      for (const again of [...readingNow]) stopQuietly(again);
    },
  };
}
