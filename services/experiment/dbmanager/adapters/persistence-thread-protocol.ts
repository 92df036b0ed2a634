// What the request thread and the persistence thread say to each other (structured-clone messages).
import type { KafkaClientName } from '../../../../shared/bus/client/index.ts';
import type { LogLevel } from '../../../../shared/logger.ts';
import type { ObservationStoreConfig } from './observation-store-config.ts';

/** Everything the thread needs to run the persistence consumer on its own connections. */
export interface PersistenceThreadConfig {
  readonly kafka: {
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly client: KafkaClientName;
  };
  readonly store: ObservationStoreConfig;
  /** Keep the read model (and rebuild it from the topics when it is empty). */
  readonly readModel: boolean;
  readonly rebuildReadModel: boolean;
  readonly groupId: string;
  readonly sessionTimeoutMs: number;
  /** After each batch, how long the next fetch waits (PERSISTENCE_BATCH_WAIT_MS). */
  readonly batchWaitMs: number;
  readonly logLevel: LogLevel;
}

/** A counter's increase since the last report, by its labels. */
export interface CounterDelta {
  readonly name: string;
  readonly help: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly delta: number;
}

export type FromThread =
  /** The consumer runs (it has started; joining the group may still be under way). */
  | { readonly kind: 'started' }
  /** The consumer stopped on an error, or could not start: the thread ends after this. */
  | { readonly kind: 'failed'; readonly message: string; readonly stack?: string }
  /** The store's own answer to the thread's calls: an UNAVAILABLE failure's message, or none when it answered. */
  | { readonly kind: 'store'; readonly lost?: { readonly code: string; readonly message: string } }
  | { readonly kind: 'counters'; readonly deltas: readonly CounterDelta[] }
  /** Offsets the group committed, as [topic, partition, next]: everything before `next` is in the store. */
  | { readonly kind: 'committed'; readonly commits: readonly (readonly [string, number, bigint])[] }
  /** The partitions the group handed the thread's consumer, as [topic, partitions]. */
  | { readonly kind: 'assigned'; readonly assignment: readonly (readonly [string, readonly number[]])[] }
  | { readonly kind: 'stopped' };

export type ToThread = { readonly kind: 'stop' };
