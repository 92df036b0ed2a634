import { describe, expect, it } from 'vitest';
import {
  createLocalCommits,
  type LocalCommits,
} from '../../../../services/experiment/common/local-commits.ts';
import { createReadBarrier } from '../../../../services/experiment/common/read-barrier.ts';
import { partitionOf } from '../../../../shared/bus/index.ts';
import { unavailable } from '../../../../shared/errors.ts';

// The barrier's decisions over a stand-in for Kafka's answers (the real topic and group are in
// test/integration/dbmanager.test.ts).
const TOPIC = 'experiment.observations';
const GROUP = 'persistence';
const KEY = 'trial-a';
const PARTITIONS = 3;
const partition = partitionOf(KEY, PARTITIONS);

function barrier(options: {
  high: bigint;
  committed: () => Promise<bigint | undefined>;
  watermarksFail?: boolean;
  timeoutMs?: number;
  localCommits?: LocalCommits;
  localPollMs?: number;
}) {
  return createReadBarrier({
    ...(options.localCommits ? { localCommits: options.localCommits } : {}),
    ...(options.localPollMs ? { localPollMs: options.localPollMs } : {}),
    topic: TOPIC,
    groupId: GROUP,
    // Long for the cases that pass: a stalled event loop must not turn them into a timeout.
    timeoutMs: options.timeoutMs ?? 10_000,
    pollMs: 1,
    bus: {
      watermarks: async () => {
        if (options.watermarksFail) throw new Error('connection refused');
        return Array.from({ length: PARTITIONS }, (_, p) => ({
          partition: p,
          low: 0n,
          high: p === partition ? options.high : 7n,
        }));
      },
      committedOffsets: async () => {
        const offset = await options.committed();
        return new Map(offset === undefined ? [] : [[partition, offset]]);
      },
    },
  });
}

describe('read barrier', () => {
  it('passes at once when the key’s partition is empty, even if the group’s offsets cannot be read', async () => {
    const empty = barrier({
      high: 0n,
      committed: () => Promise.reject(new Error('coordinator not available')),
    });
    await expect(empty.waitFor(KEY)).resolves.toBeUndefined();
  });

  it('passes once the group has committed up to the high watermark seen when called', async () => {
    let polls = 0;
    const catchingUp = barrier({ high: 5n, committed: async () => (++polls < 4 ? 3n : 5n) });
    await expect(catchingUp.waitFor(KEY)).resolves.toBeUndefined();
    expect(polls).toBe(4);
  });

  it('refuses with UNAVAILABLE, naming where the worker stands, when it does not catch up in time', async () => {
    const behind = barrier({ high: 5n, committed: async () => 2n, timeoutMs: 20 });
    await expect(behind.waitFor(KEY)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining(
        `the persistence worker (group ${GROUP}) has applied ${TOPIC} partition ${partition} up to offset 2 of 5 and did not catch up within 20 ms`,
      ),
    });
  });

  it('refuses with UNAVAILABLE when Kafka does not answer, naming what it could not read', async () => {
    const noOffsets = barrier({
      high: 5n,
      committed: () => Promise.reject(new Error('coordinator not available')),
    });
    await expect(noOffsets.waitFor(KEY)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: `read barrier: cannot read offsets of group ${GROUP}: coordinator not available`,
    });
    const noWatermarks = barrier({ high: 5n, committed: async () => 5n, watermarksFail: true });
    await expect(noWatermarks.waitFor(KEY)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: `read barrier: cannot read ${TOPIC} offsets from Kafka: connection refused`,
    });
  });

  it('keeps an UNAVAILABLE from the bus as it is', async () => {
    const own = unavailable('kafka is stopping');
    const stopping = barrier({ high: 5n, committed: () => Promise.reject(own) });
    await expect(stopping.waitFor(KEY)).rejects.toBe(own);
  });

  it('passes on this process’s own commits without asking Kafka for the group’s offsets', async () => {
    const local = createLocalCommits();
    let asked = 0;
    const own = barrier({
      high: 5n,
      committed: async () => {
        asked++;
        return 5n;
      },
      localCommits: local,
    });
    await own.waitFor(KEY); // the first read learns the partition count (and asks)
    expect(asked).toBe(1);
    local.record(TOPIC, partition, 5n);
    await own.waitFor(KEY);
    await own.waitFor(KEY);
    expect(asked).toBe(1);
  });

  it('wakes a waiting read at the local commit that reaches its target, before the next poll of Kafka', async () => {
    const local = createLocalCommits();
    local.record(TOPIC, partition, 3n);
    let asked = 0;
    const waiting = barrier({
      high: 5n,
      committed: async () => {
        asked++;
        return 3n;
      },
      localCommits: local,
      localPollMs: 60_000,
    });
    const read = waiting.waitFor(KEY);
    setTimeout(() => local.record(TOPIC, partition, 4n), 5);
    setTimeout(() => local.record(TOPIC, partition, 5n), 10);
    await read;
    expect(asked).toBe(1);
  });

  it('asks Kafka once for every read waiting at the same time', async () => {
    let asked = 0;
    let committed = 3n;
    const shared = barrier({
      high: 5n,
      committed: async () => {
        asked++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return committed;
      },
    });
    const reads = Array.from({ length: 20 }, () => shared.waitFor(KEY));
    setTimeout(() => (committed = 5n), 50);
    await Promise.all(reads);
    // 20 reads polling every millisecond for ~50 ms would have asked ~1,000 times.
    expect(asked).toBeLessThan(10);
  });
});
