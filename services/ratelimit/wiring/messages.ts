// What the main thread and the decision threads tell each other (structured clone: a configuration
// travels as ConfigData, Maps included).
import type { ServingStatus } from '../../../shared/grpc.ts';
import type { ConfigData } from '../config/index.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import type { UnitReport } from './decision-unit.ts';

/** A configuration as it is handed to a decision thread. */
export interface ConfigMessage {
  readonly rl: 'config';
  readonly data: ConfigData;
  readonly source: string;
  readonly mergeDomainConfig: boolean;
}

/** Where the instance puts a gRPC health status every decision unit answers. */
export interface HealthSetter {
  setStatus(service: string, status: ServingStatus): void;
}

export type ToThread =
  | ConfigMessage
  /** For /stats and /metrics: the thread's report. */
  | { readonly rl: 'ask'; readonly id: number }
  | { readonly rl: 'listen'; readonly httpPort: number; readonly grpcPort: number }
  | { readonly rl: 'health'; readonly service: string; readonly status: ServingStatus }
  | { readonly rl: 'stop' };

export type FromThread =
  /** Its counter store connected and a configuration in force: it can listen. */
  | { readonly rl: 'ready' }
  | { readonly rl: 'listening' }
  | { readonly rl: 'answer'; readonly id: number; readonly report: UnitReport };

/** A decision thread's workerData: everything it needs to start. */
export interface ThreadStart {
  readonly settings: RatelimitSettings;
  /** Its number in /stats (`ratelimit.worker.<unit>.*`); the main thread's unit is 0. */
  readonly unit: number;
  /** The configuration in force when it was started, if any. */
  readonly config: ConfigMessage | undefined;
  /** The health statuses the instance set so far (the configuration follower's). */
  readonly health: ReadonlyArray<readonly [string, ServingStatus]>;
}

const tagged = (message: unknown): message is { rl: string } =>
  typeof message === 'object' && message !== null && typeof (message as { rl?: unknown }).rl === 'string';

export const isToThread = (message: unknown): message is ToThread =>
  tagged(message) &&
  (message.rl === 'config' ||
    message.rl === 'ask' ||
    message.rl === 'listen' ||
    message.rl === 'health' ||
    message.rl === 'stop');

export const isFromThread = (message: unknown): message is FromThread =>
  tagged(message) && (message.rl === 'ready' || message.rl === 'listening' || message.rl === 'answer');
