// Where the observations are kept, as plain data: the request thread and the persistence thread
// each open their own connections to the same store from it.
import type { Logger } from '../../../../shared/logger.ts';
import type { ObservationStore } from '../../common/ports.ts';
import { openPostgresObservationStore } from './postgres-observation-store.ts';
import type { ReadModelDatabase } from './read-model-store.ts';
import { openSqliteObservationStore } from './sqlite-observation-store.ts';

export type ObservationStoreConfig =
  | { readonly kind: 'sqlite'; readonly file: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string; readonly poolSize: number };

/** The store the settings name (OBSERVATION_STORE and its SQLITE_* or POSTGRES_* settings). */
export function storeConfigOf(settings: {
  readonly store: 'sqlite' | 'postgres';
  readonly sqliteFile: string;
  readonly postgresUrl: string;
  readonly postgresSchema: string;
  readonly postgresPoolSize: number;
}): ObservationStoreConfig {
  return settings.store === 'sqlite'
    ? { kind: 'sqlite', file: settings.sqliteFile }
    : {
        kind: 'postgres',
        url: settings.postgresUrl,
        schema: settings.postgresSchema,
        poolSize: settings.postgresPoolSize,
      };
}

export async function openObservationStore(
  config: ObservationStoreConfig,
  logger: Logger,
): Promise<ObservationStore> {
  return config.kind === 'sqlite'
    ? openSqliteObservationStore({ file: config.file })
    : await openPostgresObservationStore({
        url: config.url,
        schema: config.schema,
        poolSize: config.poolSize,
        logger,
      });
}

/** The read model lives beside the observation store. */
export function readModelDatabaseOf(config: ObservationStoreConfig): ReadModelDatabase {
  return config.kind === 'sqlite'
    ? { kind: 'sqlite', file: config.file }
    : { kind: 'postgres', url: config.url, schema: config.schema };
}

/** How the store is named in health checks and messages. */
export const storeName = (config: ObservationStoreConfig): string =>
  config.kind === 'sqlite' ? 'the SQLite store' : 'PostgreSQL';
