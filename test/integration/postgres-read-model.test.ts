import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { openPostgresObservationStore } from '../../services/experiment/dbmanager/adapters/postgres-observation-store.ts';
import { openReadModel } from '../../services/experiment/dbmanager/adapters/read-model-store.ts';
import { silentLogger } from '../../shared/logger.ts';
import { describeReadModelContract } from '../helpers/read-model-contract.ts';

// The read model's trial queries on PostgreSQL, in a schema of their own beside the store's tables.
const URL = inject('infra').POSTGRES_URL;
const SCHEMA = `test_read_model_${randomBytes(5).toString('hex')}`;

afterAll(async () => {
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(SCHEMA)} CASCADE`);
  } finally {
    await client.end();
  }
});

describeReadModelContract('PostgreSQL', async () => {
  const store = await openPostgresObservationStore({ url: URL, schema: SCHEMA, logger: silentLogger });
  const readModel = await openReadModel({ kind: 'postgres', url: URL, schema: SCHEMA }, store);
  return {
    store,
    readModel,
    close: async () => {
      await readModel.close();
      await store.close();
    },
  };
});
