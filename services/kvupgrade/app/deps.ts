import type { Clock } from '../../../shared/clock.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { CertificateFacts } from '../domain/cluster-facts.ts';
import type { ClusterSpec } from '../domain/cluster-spec.ts';
import type { EventContext, UpgradeProgress } from '../domain/progress.ts';
import type { BinaryVersion, EtcdClient, MemberDriver, ProgressLog, SnapshotTool } from '../ports.ts';

/** What the orchestrator works with; main.ts builds it, tests may swap any part. */
export interface OrchestratorDeps {
  readonly spec: ClusterSpec;
  readonly etcd: EtcdClient;
  readonly driver: MemberDriver;
  readonly snapshots: SnapshotTool;
  /** What plan's binaries check runs. */
  readonly binaryVersion: BinaryVersion;
  readonly progress: ProgressLog;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly events: EventContext;
  readonly sleep: (ms: number) => Promise<void>;
  /** The tls block's certificates as loaded (plan judges them); undefined without a tls block. */
  readonly certificates?: readonly CertificateFacts[];
  /** Sees every event once it is acknowledged (the CLI prints them). */
  readonly onEvent: (event: UpgradeProgress) => void;
  /** What a person should know that is not an event, e.g. that the run waits for Kafka (stderr). */
  readonly onNotice: (message: string) => void;
}

export type GateDeps = Pick<OrchestratorDeps, 'spec' | 'etcd' | 'driver' | 'clock' | 'sleep'>;
