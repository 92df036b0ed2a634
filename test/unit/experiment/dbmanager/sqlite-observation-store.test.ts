import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteObservationStore } from '../../../../services/experiment/dbmanager/adapters/sqlite-observation-store.ts';
import {
  at,
  describeObservationStoreContract,
  expectUpgradeFromVersion1,
  log,
  reported,
} from '../../../helpers/observation-store-contract.ts';

const folder = mkdtempSync(join(tmpdir(), 'sqlite-observation-store-'));

/** Turns a file of the current schema back into the layout of version 1, 2 or 3, its rows kept. */
function backTo(file: string, version: 1 | 2 | 3): void {
  const db = new DatabaseSync(file);
  db.exec(`
    CREATE TABLE old_logs (
      id INTEGER PRIMARY KEY AUTOINCREMENT, trial_name TEXT NOT NULL, time TEXT NOT NULL,
      metric_name TEXT NOT NULL, value TEXT NOT NULL);
    INSERT INTO old_logs (id, trial_name, time, metric_name, value)
      SELECT id, trial_name, time, metric_name, value FROM observation_logs ORDER BY id;
    DROP TABLE observation_logs;
    DROP TABLE observation_log_ids;
    ALTER TABLE old_logs RENAME TO observation_logs;
    CREATE INDEX observation_logs_trial_metric_time ON observation_logs (trial_name, metric_name, time, id);
    CREATE INDEX observation_logs_trial_time ON observation_logs (trial_name, time, id);
    ${version <= 2 ? 'DROP TABLE metric_series; DROP TABLE metric_buckets;' : ''}
    ${version === 1 ? 'DROP TABLE trial_statuses;' : ''}
    DELETE FROM schema_version WHERE version > ${version};`);
  db.close();
}
afterAll(() => rmSync(folder, { recursive: true, force: true }));

// The folder of the file does not exist yet: the store creates it.
describeObservationStoreContract('SQLite', async () =>
  openSqliteObservationStore({ file: join(folder, 'contract', 'observations.db') }),
);

describe('SQLite observation store', () => {
  it('migrates once: opening the same file again keeps one schema version and the data', async () => {
    const file = join(folder, 'twice.db');
    const first = openSqliteObservationStore({ file });
    await first.apply([reported('t', [log(at(1), 'm', '1')])]);
    const second = openSqliteObservationStore({ file });
    expect(await second.query({ trialName: 't' })).toEqual([log(at(1), 'm', '1')]);
    await first.close();
    await second.close();

    const db = new DatabaseSync(file, { readOnly: true });
    try {
      expect(db.prepare('SELECT version FROM schema_version ORDER BY version').all()).toEqual([
        expect.objectContaining({ version: 1 }),
        expect.objectContaining({ version: 2 }),
        expect.objectContaining({ version: 3 }),
        expect.objectContaining({ version: 4 }),
      ]);
      expect(db.prepare('PRAGMA journal_mode').get()).toEqual(
        expect.objectContaining({ journal_mode: 'wal' }),
      );
    } finally {
      db.close();
    }
  });

  it('keeps data and applied event ids across close and reopen', async () => {
    const file = join(folder, 'reopen.db');
    const change = reported('t', [log(at(2), 'm', '2'), log(at(1), 'm', '1')]);
    const first = openSqliteObservationStore({ file });
    expect(await first.apply([change])).toBe(1);
    await first.close();

    const again = openSqliteObservationStore({ file });
    expect(await again.apply([change])).toBe(0);
    expect(await again.query({ trialName: 't' })).toEqual([log(at(1), 'm', '1'), log(at(2), 'm', '2')]);
    await again.close();
  });

  it('upgrades a version 1 file: adds trial statuses and curves, keeps the logs and applied event ids', async () => {
    const file = join(folder, 'upgrade.db');
    await expectUpgradeFromVersion1(
      () => openSqliteObservationStore({ file }),
      () => backTo(file, 1),
    );
  });

  it('upgrades a version 2 file (a table and two indexes) to one B-tree, keeping order and numbering after it', async () => {
    const file = join(folder, 'upgrade-2.db');
    const old = openSqliteObservationStore({ file });
    // Equal times: report order decides, across the upgrade too.
    await old.apply([reported('t', [log(at(1), 'a', '1'), log(at(1), 'b', '2')])]);
    await old.close();
    backTo(file, 2);
    const upgraded = openSqliteObservationStore({ file });
    try {
      await upgraded.apply([reported('t', [log(at(1), 'c', '3'), log(at(0), 'd', '4')])]);
      expect(await upgraded.query({ trialName: 't' })).toEqual([
        log(at(0), 'd', '4'),
        log(at(1), 'a', '1'),
        log(at(1), 'b', '2'),
        log(at(1), 'c', '3'),
      ]);
    } finally {
      await upgraded.close();
    }
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      // No index beside the table: its key is (trial_name, time, id).
      expect(
        db.prepare("SELECT type, sql FROM sqlite_master WHERE tbl_name = 'observation_logs'").all(),
      ).toEqual([
        {
          type: 'table',
          sql: expect.stringMatching(/PRIMARY KEY \(trial_name, time, id\)\s*\) WITHOUT ROWID$/),
        },
      ]);
    } finally {
      db.close();
    }
  });

  it('refuses a file whose schema is newer than this program', async () => {
    const file = join(folder, 'newer.db');
    await openSqliteObservationStore({ file }).close();
    const db = new DatabaseSync(file);
    db.exec("INSERT INTO schema_version (version, applied_at) VALUES (99, 'later')");
    db.close();
    expect(() => openSqliteObservationStore({ file })).toThrow(
      expect.objectContaining({ code: 'FAILED_PRECONDITION' }),
    );
  });
});
