import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openPostgresObservationStore } from '../../services/experiment/dbmanager/adapters/postgres-observation-store.ts';
import { silentLogger } from '../../shared/logger.ts';
import {
  describeObservationStoreContract,
  expectUpgradeFromVersion1,
} from '../helpers/observation-store-contract.ts';

const URL = inject('infra').POSTGRES_URL;
const schemaName = (prefix: string): string => `${prefix}_${randomBytes(5).toString('hex')}`;
const SCHEMA = schemaName('test_observations');
const created = [SCHEMA];

afterAll(async () => {
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  try {
    for (const schema of created)
      await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
});

describeObservationStoreContract('PostgreSQL', () =>
  openPostgresObservationStore({ url: URL, schema: SCHEMA, poolSize: 4, logger: silentLogger }),
);

describe('PostgreSQL observation store', () => {
  it('migrates safely when two stores open the same new schema at once', async () => {
    const schema = schemaName('test_observations_race');
    created.push(schema);
    const open = () => openPostgresObservationStore({ url: URL, schema, logger: silentLogger });
    const stores = await Promise.all([open(), open(), open()]);
    try {
      await Promise.all(stores.map((store) => store.ping()));
      const client = new pg.Client({ connectionString: URL });
      await client.connect();
      try {
        const versions = await client.query(
          `SELECT version FROM ${pg.escapeIdentifier(schema)}.schema_version ORDER BY version`,
        );
        expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }]);
        // One index beside the table: the one reads go by.
        const indexes = await client.query(
          "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'observation_logs'",
          [schema],
        );
        expect(indexes.rows).toEqual([{ indexname: 'observation_logs_trial_time' }]);
        const collation = await client.query(
          `SELECT collation_name FROM information_schema.columns
           WHERE table_schema = $1 AND table_name = 'observation_logs' AND column_name = 'time'`,
          [schema],
        );
        expect(collation.rows).toEqual([{ collation_name: 'C' }]);
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('upgrades a version 1 schema: adds trial statuses and curves, drops the unread indexes, keeps the logs and applied event ids', async () => {
    const schema = schemaName('test_observations_upgrade');
    created.push(schema);
    const open = () => openPostgresObservationStore({ url: URL, schema, poolSize: 1, logger: silentLogger });
    await expectUpgradeFromVersion1(open, async () => {
      const client = new pg.Client({ connectionString: URL });
      await client.connect();
      try {
        const s = pg.escapeIdentifier(schema);
        await client.query(
          `DROP TABLE ${s}.trial_statuses; DROP TABLE ${s}.metric_series; DROP TABLE ${s}.metric_buckets;
           CREATE INDEX observation_logs_trial_metric_time ON ${s}.observation_logs (trial_name, metric_name, time, id);
           ALTER TABLE ${s}.observation_logs ADD PRIMARY KEY (id);
           DELETE FROM ${s}.schema_version WHERE version > 1`,
        );
      } finally {
        await client.end();
      }
    });
  });

  it('opens with a server that does not answer, and ping rejects with UNAVAILABLE naming the host', async () => {
    const store = await openPostgresObservationStore({
      url: 'postgres://backbone:secret-password@127.0.0.1:1/backbone',
      logger: silentLogger,
      connectTimeoutMs: 2000,
    });
    try {
      const failure = await store.ping().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ code: 'UNAVAILABLE', retriable: true });
      expect((failure as Error).message).toContain('PostgreSQL');
      expect((failure as Error).message).toContain('127.0.0.1:1');
      expect((failure as Error).message).not.toContain('secret-password');
      await expect(store.query({ trialName: 't' })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      await store.close();
    }
  });
});
