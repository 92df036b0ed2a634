// What the early-stopping thread is started with (it says nothing of its own beyond what every
// component thread says: shared/component-thread/protocol.ts).
import type { Failpoint, KafkaClientName } from '../../../../shared/bus/index.ts';
import type { LogLevel } from '../../../../shared/logger.ts';
import type { JudgeTopics } from './early-stopping-judge.ts';

export interface JudgeThreadConfig {
  readonly kafka: {
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly client: KafkaClientName;
    readonly failpoints?: readonly Failpoint[];
  };
  readonly topics: JudgeTopics;
  readonly groupId: string;
  readonly sessionTimeoutMs: number;
  readonly catchUpTimeoutMs: number;
  readonly lookbackMs: number;
  readonly logLevel: LogLevel;
}
