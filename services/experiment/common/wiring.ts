// What every feature's wiring (dbmanager/wiring.ts, suggestion/wiring.ts, earlystopping/wiring.ts,
// web/adapters/start-web.ts) is handed by main.ts: the process's clients and its stop list.
import type { Registry } from 'prom-client';
import type { Bus, EventProducer, Failpoint, KafkaClientName } from '../../../shared/bus/index.ts';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger, LogLevel } from '../../../shared/logger.ts';
import type { RpcService } from '../../../shared/rpc/contract.ts';
import type { Supervisor } from '../../../shared/supervisor.ts';
import type { ExperimentTopics } from './bus-names.ts';

export interface WiringDeps {
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  readonly registry: Registry;
  readonly bus: Bus;
  readonly producer: EventProducer;
  /** Restarts long-lived consumers; the process gives up when one cannot run again. */
  readonly supervisor: Supervisor;
  /** The deployment's topic names (KAFKA_TOPIC_PREFIX before each): components take theirs from here. */
  readonly topics: ExperimentTopics;
  /** How the threads (persistence, early stopping) open Kafka clients of their own. */
  readonly kafkaOfThreads: {
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly client: KafkaClientName;
    readonly failpoints: readonly Failpoint[];
  };
  readonly logLevel: LogLevel;
  readonly shutdownDeadlineMs: number;
}

/** What a feature adds to the gRPC server and to its health. */
export interface HostedFeature {
  readonly service: RpcService;
  /** The health names it answers under (Katib probes some under older names). */
  readonly healthNames: readonly string[];
}
