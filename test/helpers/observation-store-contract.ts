import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  MetricLogRow,
  ObservationChange,
  ObservationStore,
  TrialStatusRecord,
} from '../../services/experiment/common/ports.ts';
import { describeCurveContract } from './curve-contract.ts';

const BASE = Date.UTC(2026, 0, 1);

/** A normalized time `seconds` after a fixed instant, plus `micros` microseconds. */
export function at(seconds: number, micros = 0): string {
  return `${new Date(BASE + seconds * 1000).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;
}

/** Katib's placeholder for lines without a timestamp, normalized. */
const PLACEHOLDER = '0001-01-01T00:00:00.000000Z';

export const log = (time: string, metricName: string, value: string): MetricLogRow => ({
  time,
  metricName,
  value,
});
export const reported = (trialName: string, logs: readonly MetricLogRow[], eventId = randomUUID()) =>
  ({ kind: 'reported', eventId, trialName, logs }) as const satisfies ObservationChange;
export const deleted = (trialName: string, eventId = randomUUID()) =>
  ({ kind: 'deleted', eventId, trialName }) as const satisfies ObservationChange;
export const status = (
  trialName: string,
  fields: Partial<Omit<TrialStatusRecord, 'trialName'>> = {},
  eventId = randomUUID(),
) =>
  ({
    kind: 'status',
    eventId,
    trialName,
    condition: 'EARLYSTOPPED',
    reason: 'TrialEarlyStopped',
    message: 'Trial is early stopped',
    changedAtMs: BASE,
    ...fields,
  }) as const satisfies ObservationChange;
/** What `trialStatus` answers for a `status` change. */
const recordOf = ({ kind: _, eventId: __, ...record }: ReturnType<typeof status>): TrialStatusRecord =>
  record;
const trial = (prefix: string): string => `${prefix}-${randomUUID()}`;

/**
 * Opens a store, writes a report, closes it, takes the database back to what a version 1 program
 * left (`backToVersion1`: no trial statuses, no curve tables), and checks that the store opened
 * again upgrades it: the logs and applied event ids kept, the curves built from them, statuses recorded.
 */
export async function expectUpgradeFromVersion1(
  open: () => ObservationStore | Promise<ObservationStore>,
  backToVersion1: () => void | Promise<void>,
): Promise<void> {
  const change = reported('t', [log(at(1), 'm', '1')]);
  const old = await open();
  await old.apply([change]);
  await old.close();
  await backToVersion1();
  const upgraded = await open();
  try {
    expect(await upgraded.apply([change])).toBe(0);
    expect(await upgraded.query({ trialName: 't' })).toEqual([log(at(1), 'm', '1')]);
    // The curves' summary is built from the logs that were there.
    expect(await upgraded.curves({ trialName: 't', columns: 10 })).toEqual([
      expect.objectContaining({ metricName: 'm', points: 1, data: [[BASE + 1_000, 1]] }),
    ]);
    expect(await upgraded.apply([status('t')])).toBe(1);
    expect((await upgraded.trialStatus('t'))?.condition).toBe('EARLYSTOPPED');
  } finally {
    await upgraded.close();
  }
}

/**
 * The behaviour every ObservationStore adapter must show. `open` may be called more than once (each
 * store sees the same data); tests use fresh trial names, so data left by earlier tests is harmless.
 */
export function describeObservationStoreContract(name: string, open: () => Promise<ObservationStore>): void {
  describeCurveContract(name, open);
  describe(`ObservationStore contract: ${name}`, () => {
    let store: ObservationStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('orders by time, ties in report order across changes and calls', async () => {
      const t = trial('order');
      const first = reported(t, [
        log(at(3), 'loss', 'a'),
        log(at(1), 'loss', 'b'),
        log(at(2, 5), 'acc', 'c'),
        log(PLACEHOLDER, 'loss', 'd'),
        log(at(2, 5), 'loss', 'e'),
        log(at(2), 'acc', 'f'),
      ]);
      expect(await store.apply([first, reported(t, [log(at(2, 5), 'acc', 'g')])])).toBe(2);
      await store.apply([reported(t, [log(at(2, 5), 'loss', 'h'), log(PLACEHOLDER, 'acc', 'i')])]);
      const rows = await store.query({ trialName: t });
      expect(rows.map((r) => r.value)).toEqual(['d', 'i', 'b', 'f', 'c', 'e', 'g', 'h', 'a']);
      expect(rows[2]).toEqual(log(at(1), 'loss', 'b'));
    });

    it('filters by metric name', async () => {
      const t = trial('metric');
      await store.apply([
        reported(t, [log(at(2), 'acc', '1'), log(at(1), 'loss', '2'), log(at(1), 'acc', '3')]),
      ]);
      expect(await store.query({ trialName: t, metricName: 'acc' })).toEqual([
        log(at(1), 'acc', '3'),
        log(at(2), 'acc', '1'),
      ]);
      expect(await store.query({ trialName: t, metricName: 'Acc' })).toEqual([]);
    });

    it('bounds time inclusively: from and to, only from, only to, with a metric', async () => {
      const t = trial('range');
      await store.apply([
        reported(
          t,
          [1, 2, 3, 4, 5].flatMap((i) => [log(at(i), 'm', `m${i}`), log(at(i), 'n', `n${i}`)]),
        ),
      ]);
      const values = async (q: { metricName?: string; from?: string; to?: string }) =>
        (await store.query({ trialName: t, ...q })).map((r) => r.value);
      expect(await values({ metricName: 'm', from: at(2), to: at(4) })).toEqual(['m2', 'm3', 'm4']);
      expect(await values({ metricName: 'm', from: at(4) })).toEqual(['m4', 'm5']);
      expect(await values({ metricName: 'm', to: at(2) })).toEqual(['m1', 'm2']);
      expect(await values({ from: at(5), to: at(5) })).toEqual(['m5', 'n5']);
      expect(await values({ from: at(2, 1), to: at(3) })).toEqual(['m3', 'n3']);
      expect(await values({ from: at(4), to: at(2) })).toEqual([]);
    });

    it('scans what query gives, in the same order, with every filter', async () => {
      const t = trial('scan');
      await store.apply([
        reported(t, [log(at(3), 'm', 'a'), log(at(1), 'n', 'b'), log(at(2), 'm', 'c'), log(at(1), 'm', 'd')]),
      ]);
      for (const q of [
        {},
        { metricName: 'm' },
        { from: at(2) },
        { metricName: 'm', to: at(2) },
        { metricName: 'x' },
      ]) {
        const scanned: MetricLogRow[] = [];
        const count = await store.scan({ trialName: t, ...q }, (time, metricName, value) =>
          scanned.push({ time, metricName, value }),
        );
        expect(scanned).toEqual(await store.query({ trialName: t, ...q }));
        expect(count).toBe(scanned.length);
      }
      expect(await store.scan({ trialName: trial('unknown') }, () => undefined)).toBe(0);
    });

    it('gives [] for an unknown trial', async () => {
      expect(await store.query({ trialName: trial('unknown') })).toEqual([]);
      expect(await store.query({ trialName: trial('unknown'), metricName: 'm', from: at(0) })).toEqual([]);
    });

    it('applies an event id once: redelivery, duplicates in a batch, a redelivered delete', async () => {
      const t = trial('redelivery');
      const change = reported(t, [log(at(1), 'm', '1')]);
      expect(await store.apply([change])).toBe(1);
      expect(await store.apply([change])).toBe(0);
      expect(await store.apply([change, change])).toBe(0);
      const twice = reported(t, [log(at(2), 'm', '2')]);
      expect(await store.apply([twice, twice])).toBe(1);
      expect((await store.query({ trialName: t })).map((r) => r.value)).toEqual(['1', '2']);

      const removal = deleted(t);
      expect(await store.apply([removal, reported(t, [log(at(3), 'm', '3')])])).toBe(2);
      expect(await store.apply([removal])).toBe(0);
      expect((await store.query({ trialName: t })).map((r) => r.value)).toEqual(['3']);
    });

    it('applies a batch in order: report A, delete, report B leaves only B; other trials untouched', async () => {
      const t = trial('mixed');
      const other = trial('other');
      await store.apply([reported(t, [log(at(0), 'm', 'old')]), reported(other, [log(at(1), 'm', 'kept')])]);
      const batch = [reported(t, [log(at(1), 'm', 'A')]), deleted(t), reported(t, [log(at(2), 'm', 'B')])];
      expect(await store.apply(batch)).toBe(3);
      expect(await store.query({ trialName: t })).toEqual([log(at(2), 'm', 'B')]);
      expect(await store.query({ trialName: other })).toEqual([log(at(1), 'm', 'kept')]);
    });

    it('accepts a delete of an unknown trial, an empty report and an empty batch', async () => {
      const t = trial('empty');
      expect(await store.apply([deleted(t)])).toBe(1);
      expect(await store.apply([reported(t, [])])).toBe(1);
      expect(await store.apply([])).toBe(0);
      expect(await store.query({ trialName: t })).toEqual([]);
    });

    it('keeps values and names verbatim', async () => {
      const t = trial('verbatim');
      const odd = [
        'unavailable',
        '1e-3',
        '',
        ' 0.50 ',
        'NULL',
        '{"a",b}\\',
        "it's",
        '\\N',
        'a\tb\nc\rd\\e',
        '\\.',
      ];
      await store.apply([
        reported(
          t,
          odd.map((value, i) => log(at(i), i === 8 ? `m\t{"${i}"}\n` : `m,{"${i}"}`, value)),
        ),
      ]);
      const rows = await store.query({ trialName: t });
      expect(rows.map((r) => r.value)).toEqual(odd);
      expect(rows.map((r) => r.metricName)).toEqual(
        odd.map((_, i) => (i === 8 ? `m\t{"${i}"}\n` : `m,{"${i}"}`)),
      );
      expect(await store.query({ trialName: t, metricName: 'm,{"4"}' })).toEqual([
        log(at(4), 'm,{"4"}', 'NULL'),
      ]);
    });

    it('handles unicode trial and metric names', async () => {
      const t = trial('trial-ñ-試験-🚀');
      await store.apply([reported(t, [log(at(1), 'précision-精度-📈', 'ü'), log(at(2), 'loss', '1')])]);
      expect(await store.query({ trialName: t, metricName: 'précision-精度-📈' })).toEqual([
        log(at(1), 'précision-精度-📈', 'ü'),
      ]);
      expect(await store.query({ trialName: t.normalize('NFD') })).toEqual([]);
    });

    it('stores a 20,000-row report in one change, in order', { timeout: 60_000 }, async () => {
      const t = trial('large');
      const logs = Array.from({ length: 20_000 }, (_, i) =>
        log(at(Math.floor(i / 4)), `m${i % 4}`, String(i)),
      );
      expect(await store.apply([reported(t, logs)])).toBe(1);
      const rows = await store.query({ trialName: t });
      expect(rows.length).toBe(20_000);
      expect(rows.every((row, i) => row.value === String(i) && row.time === logs[i]!.time)).toBe(true);
      const m3 = await store.query({ trialName: t, metricName: 'm3', from: at(100), to: at(199) });
      expect(m3.map((r) => r.value)).toEqual(Array.from({ length: 100 }, (_, i) => String(403 + 4 * i)));
    });

    it('applies nothing of a failed batch, not even event ids, and stays usable', async () => {
      const t = trial('failed');
      const good = reported(t, [log(at(1), 'm', '1')]);
      const bad = reported(trial('bad'), [
        { time: at(1), metricName: null as unknown as string, value: '1' },
      ]);
      await expect(store.apply([good, deleted(t), bad])).rejects.toMatchObject({
        code: 'INTERNAL',
        retriable: false,
      });
      expect(await store.query({ trialName: t })).toEqual([]);
      expect(await store.apply([good])).toBe(1);
      expect(await store.query({ trialName: t })).toEqual([log(at(1), 'm', '1')]);
    });

    it('applies concurrent calls on different trials', async () => {
      const trials = Array.from({ length: 8 }, (_, i) => trial(`concurrent${i}`));
      const counts = await Promise.all(
        trials.map((t) =>
          store.apply([
            reported(
              t,
              Array.from({ length: 200 }, (_, i) => log(at(i % 50), 'm', String(i))),
            ),
          ]),
        ),
      );
      expect(counts).toEqual(trials.map(() => 1));
      for (const t of trials) {
        const rows = await store.query({ trialName: t });
        expect(rows.length).toBe(200);
        expect(rows.slice(0, 4).map((r) => r.value)).toEqual(['0', '50', '100', '150']);
      }
    });

    it('keeps the latest status of a trial: a later change replaces it, in a batch and across calls', async () => {
      const t = trial('status');
      const other = trial('status-other');
      const running = status(t, { condition: 'RUNNING', reason: 'TrialRunning', message: '' });
      const stopped = status(t, { changedAtMs: BASE + 1_500 });
      expect(await store.apply([running, status(other, { condition: 'SUCCEEDED' }), stopped])).toBe(3);
      expect(await store.trialStatus(t)).toEqual(recordOf(stopped));
      expect((await store.trialStatus(other))?.condition).toBe('SUCCEEDED');

      // Later in partition order wins, whatever its time says.
      const older = status(t, { condition: 'FAILED', reason: 'r,"q"', message: "it's\n试", changedAtMs: 7 });
      expect(await store.apply([older])).toBe(1);
      expect(await store.trialStatus(t)).toEqual(recordOf(older));
      expect((await store.trialStatus(other))?.condition).toBe('SUCCEEDED');
    });

    it('applies a status event id once: redelivery and duplicates in a batch', async () => {
      const t = trial('status-redelivery');
      const first = status(t, { condition: 'RUNNING' });
      const second = status(t);
      expect(await store.apply([first, first])).toBe(1);
      expect(await store.apply([second, second])).toBe(1);
      // A redelivered earlier status must not bring the trial back to it.
      expect(await store.apply([first])).toBe(0);
      expect(await store.apply([second, first])).toBe(0);
      expect(await store.trialStatus(t)).toEqual(recordOf(second));
    });

    it('applies no status of a failed batch and stays usable', async () => {
      const t = trial('status-failed');
      const good = status(t);
      const badStatus = status(trial('status-bad'), { condition: null as unknown as string });
      const badLog = reported(trial('log-bad'), [
        { time: at(1), metricName: null as unknown as string, value: '1' },
      ]);
      await store.apply([status(t, { condition: 'RUNNING' })]);
      for (const bad of [badStatus, badLog]) {
        await expect(store.apply([good, reported(t, [log(at(1), 'm', '1')]), bad])).rejects.toMatchObject({
          code: 'INTERNAL',
          retriable: false,
        });
      }
      expect((await store.trialStatus(t))?.condition).toBe('RUNNING');
      expect(await store.trialStatus(badStatus.trialName)).toBeUndefined();
      expect(await store.query({ trialName: t })).toEqual([]);
      expect(await store.apply([good])).toBe(1);
      expect(await store.trialStatus(t)).toEqual(recordOf(good));
    });

    it('knows a trial by its logs or its status; an unknown trial has no status', async () => {
      const unknown = trial('status-unknown');
      expect(await store.trialStatus(unknown)).toBeUndefined();
      expect(await store.knowsTrial(unknown)).toBe(false);

      const byLogs = trial('known-by-logs');
      await store.apply([reported(byLogs, [log(at(1), 'm', '1')])]);
      expect(await store.knowsTrial(byLogs)).toBe(true);
      expect(await store.trialStatus(byLogs)).toBeUndefined();

      const byStatus = trial('known-by-status');
      await store.apply([status(byStatus)]);
      expect(await store.knowsTrial(byStatus)).toBe(true);
      expect(await store.query({ trialName: byStatus })).toEqual([]);

      // An empty report or a delete leaves nothing to know the trial by.
      const empty = trial('status-empty');
      await store.apply([reported(empty, []), deleted(empty)]);
      expect(await store.knowsTrial(empty)).toBe(false);
      expect(await store.knowsTrial(byLogs.toUpperCase())).toBe(false);
    });

    it('keeps the status when the logs are deleted, and forgets a trial whose logs go without one', async () => {
      const t = trial('status-delete');
      const stopped = status(t);
      await store.apply([reported(t, [log(at(1), 'm', '1')]), stopped, deleted(t)]);
      expect(await store.query({ trialName: t })).toEqual([]);
      expect(await store.trialStatus(t)).toEqual(recordOf(stopped));
      expect(await store.knowsTrial(t)).toBe(true);

      const logsOnly = trial('logs-delete');
      await store.apply([reported(logsOnly, [log(at(1), 'm', '1')])]);
      await store.apply([deleted(logsOnly)]);
      expect(await store.knowsTrial(logsOnly)).toBe(false);
    });

    it('answers ping while open and rejects with UNAVAILABLE after close', async () => {
      const other = await open();
      await other.ping();
      await other.close();
      await expect(other.ping()).rejects.toMatchObject({ code: 'UNAVAILABLE', retriable: true });
      await expect(other.query({ trialName: 'x' })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(other.scan({ trialName: 'x' }, () => undefined)).rejects.toMatchObject({
        code: 'UNAVAILABLE',
      });
      await expect(other.apply([deleted('x')])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(other.trialStatus('x')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(other.knowsTrial('x')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await other.close();
      await store.ping();
    });
  });
}
