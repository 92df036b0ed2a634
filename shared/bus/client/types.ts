// What the bus needs from a Kafka client library. Only the files in this folder import one, so
// changing the library is a change to this folder alone (a lint rule keeps it so).

import type { Logger } from '../../logger.ts';
import type { Failpoint } from './failpoints.ts';

/** A topic as the bus declares it; the client creates it so. */
export interface TopicDeclaration {
  readonly name: string;
  readonly partitions: number;
  readonly cleanupPolicy: 'delete' | 'compact';
  /** -1 keeps events forever: topics are the record that replay and rebuilds read. */
  readonly retentionMs: number;
  readonly maxMessageBytes: number;
}

/** A record as it was read, before decoding. */
export interface RawRecord {
  readonly offset: bigint;
  /** Broker (or producer) timestamp, ms since the epoch. */
  readonly timestamp: number;
  readonly key: Buffer | null;
  /** null for a tombstone. */
  readonly value: Buffer | null;
  /** Header values as UTF-8 text (the first one when a name repeats). */
  readonly headers: Readonly<Record<string, string>>;
}

/** A record to write, its partition already chosen by the bus. */
export interface OutgoingRecord {
  readonly topic: string;
  readonly partition: number;
  readonly key: Buffer | string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** Offsets of one partition: `low` is its first readable offset, `high` the next one to be written. */
export interface Watermarks {
  readonly partition: number;
  readonly low: bigint;
  readonly high: bigint;
}

export interface PartitionState {
  readonly partition: number;
  /** Node id of the leader; -1 while there is none. */
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

export interface FetchedBatch {
  readonly topic: string;
  readonly partition: number;
  /** Data records in offset order (control records such as transaction markers are left out). */
  readonly records: readonly RawRecord[];
}

export interface BatchContext {
  /** Tells the group this member is alive during long work. */
  heartbeat(): Promise<void>;
  /** False once the consumer stops or the partition was taken away in a rebalance. */
  isActive(): boolean;
  /** Commits `next` (the offset after the last one applied) on this batch's partition for the group. */
  commit(next: bigint): Promise<void>;
}

export interface ConsumeOptions {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly sessionTimeoutMs: number;
  /** How long a fetch waits for data; also bounds how long `stop` waits. */
  readonly maxWaitMs: number;
  /**
   * A fetch answers once this many bytes are there, or after `maxWaitMs`: more than 1 trades up to
   * `maxWaitMs` of delay for fewer, larger batches while records arrive. Default 1.
   */
  readonly minBytes?: number;
  /**
   * After records that reached a partition's end were handed over, the next fetch waits this long,
   * so that records arriving meanwhile come in one batch: fewer fetches, transactions and commits
   * while records keep coming, at most this much more delay, nothing while idle (a fetch that found
   * nothing does not wait) nor while catching up (there is more to read at once). Default 0.
   */
  readonly lingerMs?: number;
  /** Checked before each linger: false skips it (a reader someone waits on). */
  readonly lingerIf?: () => boolean;
  /**
   * How many partitions' batches may be in `onBatch` at once (one fetch carries several); each
   * partition's batches still come one after another. Default 1.
   */
  readonly concurrentPartitions?: number;
  /** How often topic metadata is refreshed: partitions added to a topic are read after at most this. */
  readonly metadataMaxAgeMs?: number;
  /**
   * Where an assigned partition starts: an offset, or undefined for the group's committed offset
   * (the partition's first offset when the group has none).
   */
  readonly startAt: (topic: string, partition: number) => bigint | undefined;
  /** Called with each fetched batch of a partition, in order; the next batch of it waits. */
  readonly onBatch: (batch: FetchedBatch, context: BatchContext) => Promise<void>;
  /**
   * The next offset to read on a partition after a fetch, including control records a batch did
   * not carry: a partition can end on a transaction marker that no batch shows.
   */
  readonly onPosition?: (topic: string, partition: number, next: bigint) => void;
  /** Each time the group hands this member its partitions. */
  readonly onAssigned?: (assignment: ReadonlyMap<string, readonly number[]>) => void;
}

export interface GroupConsumer {
  /** Resolves once the member first received its partitions. */
  readonly joined: Promise<void>;
  /** Rejects when the consumer stopped for good on an error it could not recover from. */
  readonly failed: Promise<never>;
  /** Stops fetching a partition (it stays assigned). */
  pause(topic: string, partition: number): void;
  /** Ends a linger under way: the next fetch goes at once. */
  hurry(): void;
  /** Lets the batch in hand finish, then leaves the group. */
  stop(): Promise<void>;
}

/** Where a send's records of one partition ended: every offset before `next` is written. */
export interface WrittenPartition {
  readonly topic: string;
  readonly partition: number;
  readonly next: bigint;
}

export interface ClientProducer {
  /**
   * Resolves once the broker acknowledged every record (acks=all, idempotent, in order), with the
   * offset after each partition's last record.
   */
  send(records: readonly OutgoingRecord[]): Promise<readonly WrittenPartition[]>;
  close(): Promise<void>;
}

export interface KafkaClient {
  readonly name: string;
  listTopics(): Promise<string[]>;
  createTopics(declarations: readonly TopicDeclaration[]): Promise<void>;
  deleteTopics(names: readonly string[]): Promise<void>;
  /** Raises a topic's partition count (partitions are never removed). */
  addPartitions(topic: string, count: number): Promise<void>;
  /** Partition count of each existing topic among `names`. */
  partitionCounts(names: readonly string[]): Promise<Map<string, number>>;
  watermarks(topic: string): Promise<Watermarks[]>;
  /** Leader, replicas and in-sync replicas of every partition (operators, fault tests). */
  partitionStates(topic: string): Promise<PartitionState[]>;
  /** Per partition, the first offset whose timestamp is at or after `ms` (the high watermark when none). */
  offsetsAtTime(topic: string, ms: number): Promise<Map<number, bigint>>;
  /** The group's committed offsets on `topic`; partitions without one are absent. */
  committedOffsets(groupId: string, topic: string): Promise<Map<number, bigint>>;
  /** Sets the offsets of a group that has no live member (a new group, or a stopped one). */
  setCommittedOffsets(groupId: string, topic: string, offsets: ReadonlyMap<number, bigint>): Promise<void>;
  deleteGroups(groupIds: readonly string[]): Promise<void>;
  /** Whether the cluster answers (health checks). */
  ping(): Promise<void>;
  createProducer(): Promise<ClientProducer>;
  /** Writes records in one committed transaction (tools and tests of transaction markers). */
  sendInTransaction(records: readonly OutgoingRecord[]): Promise<void>;
  consume(options: ConsumeOptions): Promise<GroupConsumer>;
  close(): Promise<void>;
}

export interface ClientOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly logger: Logger;
  /** Calls made to fail on purpose (KAFKA_FAILPOINTS, tests); none by default. */
  readonly failpoints?: readonly Failpoint[];
}
