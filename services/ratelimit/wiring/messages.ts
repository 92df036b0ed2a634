// What the primary and its decision processes tell each other over the cluster's IPC channel
// (advanced serialization: a configuration travels as ConfigData, Maps included).
import type { ConfigData } from '../config/index.ts';

export type PrimaryMessage =
  | {
      readonly rl: 'config';
      readonly data: ConfigData;
      readonly source: string;
      readonly mergeDomainConfig: boolean;
    }
  | { readonly rl: 'stats?'; readonly id: number };

export type DecisionProcessMessage =
  | { readonly rl: 'config?' }
  | { readonly rl: 'ready'; readonly id: number }
  | { readonly rl: 'stats'; readonly id: number; readonly lines: Array<[string, number]> };

const tagged = (message: unknown): message is { rl: string } =>
  typeof message === 'object' && message !== null && typeof (message as { rl?: unknown }).rl === 'string';

export const isPrimaryMessage = (message: unknown): message is PrimaryMessage =>
  tagged(message) && (message.rl === 'config' || message.rl === 'stats?');

export const isDecisionProcessMessage = (message: unknown): message is DecisionProcessMessage =>
  tagged(message) && (message.rl === 'config?' || message.rl === 'ready' || message.rl === 'stats');
