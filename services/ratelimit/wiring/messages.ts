// What the primary and its decision workers tell each other over the cluster's IPC channel.
import type { FoundConfig } from './config-source.ts';

export type PrimaryMessage =
  | { readonly rl: 'config'; readonly found: FoundConfig }
  | { readonly rl: 'stats?'; readonly id: number };

export type WorkerMessage =
  | { readonly rl: 'config?' }
  | { readonly rl: 'ready'; readonly worker: number }
  | { readonly rl: 'stats'; readonly id: number; readonly lines: Array<[string, number]> };

const tagged = (message: unknown): message is { rl: string } =>
  typeof message === 'object' && message !== null && typeof (message as { rl?: unknown }).rl === 'string';

export const isPrimaryMessage = (message: unknown): message is PrimaryMessage =>
  tagged(message) && (message.rl === 'config' || message.rl === 'stats?');

export const isWorkerMessage = (message: unknown): message is WorkerMessage =>
  tagged(message) && (message.rl === 'config?' || message.rl === 'ready' || message.rl === 'stats');
