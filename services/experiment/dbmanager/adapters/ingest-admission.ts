// Back-pressure for reports: a report waits before it is published while this process's
// persistence consumer is further behind its acknowledged writes than the budget, so that what was
// acknowledged is readable within about the budget (the read barrier's wait) instead of the backlog
// growing for as long as reports come faster than the store takes them. Only partitions this
// process applies count; while the store is lost, or after `maxWaitMs`, a report goes anyway: Kafka
// holds it, and refusing it would lose nothing less.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { WrittenPartition } from '../../../../shared/bus/index.ts';
import { IngestBacklog } from '../ingest-backlog.ts';

export interface IngestAdmission {
  /** Undefined when a report may go now, else a promise that resolves when it may. */
  admit(): Promise<void> | undefined;
  /** The producer's acknowledgement of a send (every topic; only `topic`'s count). */
  written(written: WrittenPartition): void;
  /** This process's persistence consumer committed `next` on a partition. */
  committed(topic: string, partition: number, next: bigint): void;
  /** The partitions this process's persistence consumer applies (empty while it is not running). */
  assigned(assignment: ReadonlyMap<string, readonly number[]>): void;
  /** Something `storeLost` reads changed: waiting reports may go now. */
  recheck(): void;
}

export function createIngestAdmission(options: {
  topic: string;
  /** Reports wait while the oldest unapplied acknowledged write is older than this (ms); 0: never. */
  budgetMs: number;
  /** The longest a report waits (ms). */
  maxWaitMs: number;
  now: () => number;
  /** True while the store is known lost: nothing is applied, so waiting would not help. */
  storeLost?: () => boolean;
  registry?: Registry;
}): IngestAdmission {
  const { topic, budgetMs, maxWaitMs, now } = options;
  const backlog = new IngestBacklog();
  const waiting = new Set<() => void>();
  const registers = options.registry ? [options.registry] : [];
  const delayed = new Counter({
    name: 'experiment_reports_delayed_total',
    help: 'Reports that waited for the persistence consumer to catch up before they were published',
    labelNames: ['outcome'],
    registers,
  });
  new Gauge({
    name: 'experiment_persistence_lag_seconds',
    help: 'Age of the oldest report this process acknowledged that its persistence consumer has not applied',
    registers,
    collect() {
      this.set(backlog.lagMs(now()) / 1_000);
    },
  });
  const overBudget = (): boolean =>
    budgetMs > 0 && backlog.lagMs(now()) > budgetMs && !(options.storeLost?.() ?? false);
  const release = (): void => {
    if (waiting.size === 0 || overBudget()) return;
    for (const go of [...waiting]) go();
  };

  return {
    admit() {
      if (!overBudget()) return undefined;
      return new Promise<void>((resolve) => {
        const go = (outcome: 'caught_up' | 'max_wait'): void => {
          clearTimeout(timer);
          waiting.delete(caughtUp);
          delayed.inc({ outcome });
          resolve();
        };
        const caughtUp = (): void => go('caught_up');
        const timer = setTimeout(() => go('max_wait'), maxWaitMs);
        waiting.add(caughtUp);
      });
    },
    written(written) {
      if (written.topic === topic) backlog.written(written.partition, written.next, now());
    },
    committed(committedTopic, partition, next) {
      if (committedTopic !== topic) return;
      backlog.applied(partition, next);
      release();
    },
    assigned(assignment) {
      backlog.assign(assignment.get(topic) ?? []);
      release();
    },
    recheck: release,
  };
}
