import { setTimeout as sleep } from 'node:timers/promises';
import { type Bus, partitionOf } from '../../../shared/bus/index.ts';
import { AppError, unavailable } from '../../../shared/errors.ts';
import type { LocalCommits } from './local-commits.ts';

export interface ReadBarrier {
  /**
   * Resolves once the persistence group has committed the key's partition up to the high
   * watermark seen when called: every write acknowledged before the call is then in the store.
   * Rejects with UNAVAILABLE, saying why, when that does not happen within the bound.
   */
  waitFor(key: string): Promise<void>;
}

/**
 * Reads the persistence group's committed offsets from Kafka, never in-process state alone, so any
 * number of gateway instances give the same guarantee. This process's own persistence consumer's
 * commits (`localCommits`) are commits Kafka accepted: a target found there needs no question to
 * Kafka, and they wake a waiting read at once.
 */
export function createReadBarrier(options: {
  bus: Pick<Bus, 'watermarks' | 'committedOffsets'>;
  topic: string;
  groupId: string;
  timeoutMs: number;
  /** How often Kafka is asked while a read waits. Default 5, or `localPollMs` with local commits. */
  pollMs?: number;
  /** With local commits, Kafka is asked this often (for partitions another instance applies). Default 50. */
  localPollMs?: number;
  localCommits?: LocalCommits;
  /**
   * Why the store cannot be read now (it is lost), or undefined: checked before and while waiting,
   * so a read fails at once with that reason rather than after `timeoutMs`.
   */
  storeLost?: (what: string) => AppError | undefined;
}): ReadBarrier {
  const { bus, topic, groupId, timeoutMs, localCommits } = options;
  const pollMs = localCommits ? (options.localPollMs ?? 50) : (options.pollMs ?? 5);
  const checkStore = (key: string): void => {
    const lost = options.storeLost?.(`reading ${key}`);
    if (lost) throw lost;
  };
  const unreachable = (what: string, error: unknown) =>
    error instanceof AppError
      ? error
      : unavailable(`read barrier: cannot read ${what}: ${(error as Error).message}`, error);

  // One question at a time for every waiting read: offsets read at any moment are a valid lower
  // bound (they only move on), so a read may take an answer to a question asked before it came.
  let asking: Promise<Map<number, bigint>> | undefined;
  const committedOffsets = (): Promise<Map<number, bigint>> => {
    asking ??= bus
      .committedOffsets(groupId, topic)
      .catch((error: unknown) => {
        throw unreachable(`offsets of group ${groupId}`, error);
      })
      .finally(() => {
        asking = undefined;
      });
    return asking;
  };
  const local = (partition: number): bigint => localCommits?.committed(topic, partition) ?? -1n;
  /** Resolves at the next local commit of the partition ('commit'), or after `ms` ('timer'). */
  const nextCommitOr = (partition: number, ms: number): Promise<'commit' | 'timer'> => {
    if (!localCommits) return sleep(ms, 'timer' as const);
    return new Promise((resolve) => {
      const done = (why: 'commit' | 'timer'): void => {
        clearTimeout(timer);
        stop();
        resolve(why);
      };
      const timer = setTimeout(() => done('timer'), ms);
      const stop = localCommits.onCommit((t, p) => {
        if (t === topic && p === partition) done('commit');
      });
    });
  };
  let partitions = 0;

  return {
    async waitFor(key) {
      checkStore(key);
      const started = Date.now();
      // Asked together with the watermarks (one wait for Kafka instead of two) unless this process
      // applied the partition already. Offsets read before the watermark can only be lower, so a
      // read that passes on them would also pass on offsets read after it.
      const guess = partitions > 0 ? partitionOf(key, partitions) : -1;
      const asked = guess >= 0 && local(guess) >= 0n ? undefined : committedOffsets();
      // Not needed when the partition turns out empty: its failure then fails nothing.
      asked?.catch(() => undefined);
      const watermarks = await bus.watermarks(topic).catch((error: unknown) => {
        throw unreachable(`${topic} offsets from Kafka`, error);
      });
      partitions = watermarks.length;
      // Every partition's watermarks, so the key maps over the topic's current partition count
      // exactly as the producer maps it.
      const partition = partitionOf(key, watermarks.length);
      const watermark = watermarks.find((w) => w.partition === partition);
      // Nothing readable on the partition: no write can be missing.
      if (!watermark || watermark.high <= watermark.low) return;
      const target = watermark.high;
      let committed = local(partition);
      if (committed >= target) return;
      if (asked) committed = max(committed, (await asked).get(partition) ?? -1n);
      for (;;) {
        if (committed >= target) return;
        if (Date.now() - started >= timeoutMs) break;
        checkStore(key);
        const woken = await nextCommitOr(partition, pollMs);
        committed = max(committed, local(partition));
        if (committed < target && woken === 'timer')
          committed = max(committed, (await committedOffsets()).get(partition) ?? -1n);
      }
      // Callers read this: it names the consumer as its setting does (PERSISTENCE_WORKER).
      throw unavailable(
        `the persistence worker (group ${groupId}) has applied ${topic} partition ${partition} up to offset ` +
          `${committed < 0n ? 0n : committed} of ${target} and did not catch up within ${timeoutMs} ms; ` +
          'refusing to answer from a store that may miss acknowledged writes',
      );
    },
  };
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
