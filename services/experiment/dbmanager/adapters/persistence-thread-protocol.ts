// What the persistence thread tells the request thread besides what every component thread says
// (shared/component-thread/protocol.ts).
import type { Failpoint, KafkaClientName } from '../../../../shared/bus/index.ts';
import type { LogLevel } from '../../../../shared/logger.ts';
import type { ObservationStoreConfig } from './observation-store-config.ts';
import type { PersistenceTopics } from './persistence-consumer.ts';

/** Everything the thread needs to run the persistence consumer on its own connections. */
export interface PersistenceThreadConfig {
  readonly kafka: {
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly client: KafkaClientName;
    readonly failpoints?: readonly Failpoint[];
  };
  readonly store: ObservationStoreConfig;
  /** Keep the read model (and rebuild it from the topics when it is empty). */
  readonly readModel: boolean;
  readonly rebuildReadModel: boolean;
  readonly topics: PersistenceTopics;
  readonly groupId: string;
  readonly sessionTimeoutMs: number;
  /** After each batch, how long the next fetch waits (PERSISTENCE_BATCH_WAIT_MS). */
  readonly batchWaitMs: number;
  readonly logLevel: LogLevel;
}

export type FromThread =
  /** The store's own answer to the thread's calls: an UNAVAILABLE failure's message, or none when it answered. */
  | { readonly kind: 'store'; readonly lost?: { readonly code: string; readonly message: string } }
  /** Offsets the group committed, as [topic, partition, next]: everything before `next` is in the store. */
  | { readonly kind: 'committed'; readonly commits: readonly (readonly [string, number, bigint])[] }
  /** The partitions the group handed the thread's consumer, as [topic, partitions]. */
  | { readonly kind: 'assigned'; readonly assignment: readonly (readonly [string, readonly number[]])[] };
