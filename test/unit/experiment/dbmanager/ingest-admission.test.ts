import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createIngestAdmission } from '../../../../services/experiment/dbmanager/adapters/ingest-admission.ts';
import { IngestBacklog } from '../../../../services/experiment/dbmanager/ingest-backlog.ts';

describe('IngestBacklog', () => {
  it('is as far behind as the oldest acknowledged write not yet applied, on assigned partitions only', () => {
    const backlog = new IngestBacklog();
    backlog.assign([0, 1]);
    backlog.written(0, 10n, 1_000);
    backlog.written(1, 5n, 1_200);
    backlog.written(2, 50n, 900); // another instance applies partition 2
    expect(backlog.lagMs(1_500)).toBe(500);
    backlog.applied(0, 10n);
    expect(backlog.lagMs(1_500)).toBe(300);
    backlog.applied(1, 4n); // offset 4 not yet
    expect(backlog.lagMs(1_500)).toBe(300);
    backlog.applied(1, 5n);
    expect(backlog.lagMs(1_500)).toBe(0);
  });

  it('keeps later writes after the oldest is applied, timed from their own acknowledgement', () => {
    const backlog = new IngestBacklog();
    backlog.assign([0]);
    backlog.written(0, 10n, 1_000);
    backlog.written(0, 20n, 1_100);
    backlog.written(0, 30n, 1_300);
    backlog.applied(0, 15n);
    expect(backlog.lagMs(1_400)).toBe(300);
    backlog.applied(0, 20n);
    expect(backlog.lagMs(1_400)).toBe(100);
  });

  it('ignores a write the consumer applied before its acknowledgement came back', () => {
    const backlog = new IngestBacklog();
    backlog.assign([0]);
    backlog.applied(0, 10n);
    backlog.written(0, 10n, 1_000);
    expect(backlog.lagMs(2_000)).toBe(0);
  });

  it('forgets partitions taken away in a rebalance', () => {
    const backlog = new IngestBacklog();
    backlog.assign([0, 1]);
    backlog.written(0, 10n, 1_000);
    backlog.written(1, 10n, 1_100);
    backlog.assign([1]);
    expect(backlog.lagMs(2_000)).toBe(900);
    backlog.assign([]);
    expect(backlog.lagMs(2_000)).toBe(0);
  });

  it('keeps a bounded number of marks however long the consumer stalls, reading ages high', () => {
    const backlog = new IngestBacklog();
    backlog.assign([0]);
    for (let i = 1; i <= 100_000; i += 1) backlog.written(0, BigInt(i), i * 10);
    backlog.applied(0, 50_000n);
    // The marks past the cap joined the last one: its age is that of the cap's last mark.
    expect(backlog.lagMs(1_000_010)).toBeGreaterThanOrEqual(1_000_010 - 500_000);
    backlog.applied(0, 100_000n);
    expect(backlog.lagMs(1_000_010)).toBe(0);
  });
});

describe('ingest admission', () => {
  let now = 0;
  beforeEach(() => {
    vi.useFakeTimers();
    now = 0;
  });
  afterEach(() => vi.useRealTimers());

  const admission = (options: { storeLost?: () => boolean } = {}) => {
    const created = createIngestAdmission({
      topic: 'obs',
      budgetMs: 500,
      maxWaitMs: 1_000,
      now: () => now,
      registry: new Registry(),
      ...options,
    });
    created.assigned(new Map([['obs', [0]]]));
    return created;
  };

  it('lets reports go at once while the consumer is within the budget', () => {
    const gate = admission();
    gate.written({ topic: 'obs', partition: 0, next: 10n });
    now = 500;
    expect(gate.admit()).toBeUndefined();
  });

  it('holds reports while the consumer is behind, and lets them go when it catches up', async () => {
    const gate = admission();
    gate.written({ topic: 'obs', partition: 0, next: 10n });
    gate.written({ topic: 'other', partition: 0, next: 99n });
    now = 501;
    const waiting = gate.admit();
    expect(waiting).toBeInstanceOf(Promise);
    let released = false;
    void waiting!.then(() => {
      released = true;
    });
    gate.committed('obs', 0, 5n);
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toBe(false);
    gate.committed('obs', 0, 10n);
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toBe(true);
  });

  it('lets a held report go after the longest wait when the consumer does not move', async () => {
    const gate = admission();
    gate.written({ topic: 'obs', partition: 0, next: 10n });
    now = 600;
    let released = false;
    void gate.admit()!.then(() => {
      released = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(released).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(released).toBe(true);
  });

  it('lets a held report go when the store is found lost', async () => {
    let lost = false;
    const gate = admission({ storeLost: () => lost });
    gate.written({ topic: 'obs', partition: 0, next: 10n });
    now = 600;
    let released = false;
    void gate.admit()!.then(() => {
      released = true;
    });
    gate.recheck();
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toBe(false);
    lost = true;
    gate.recheck();
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toBe(true);
  });

  it('lets reports go while the store is lost, and when the consumer is not running', async () => {
    let lost = true;
    const gate = admission({ storeLost: () => lost });
    gate.written({ topic: 'obs', partition: 0, next: 10n });
    now = 600;
    expect(gate.admit()).toBeUndefined();
    lost = false;
    let released = false;
    void gate.admit()!.then(() => {
      released = true;
    });
    gate.assigned(new Map());
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toBe(true);
    expect(gate.admit()).toBeUndefined();
  });
});
