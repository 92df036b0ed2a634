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
      () => {
        const db = new DatabaseSync(file);
        db.exec(
          'DROP TABLE trial_statuses; DROP TABLE metric_series; DROP TABLE metric_buckets; DELETE FROM schema_version WHERE version > 1;',
        );
        db.close();
      },
    );
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
