// Every algorithm name the service answers, under Katib's names.

import type { Algorithm } from './algorithm.ts';
import { fromSampler } from './algorithm.ts';
import { grid } from './algorithms/grid.ts';
import { hyperband } from './algorithms/hyperband.ts';
import { pbt } from './algorithms/pbt.ts';
import { randomSampler } from './algorithms/random.ts';
import { sobol } from './algorithms/sobol.ts';
import { readRandomSettings } from './settings/katib-settings.ts';

// biome-ignore lint/suspicious/noExplicitAny: each algorithm has its own settings type; the registry only passes them through.
export type AnyAlgorithm = Algorithm<any>;

export const ALGORITHMS: ReadonlyMap<string, AnyAlgorithm> = new Map<string, AnyAlgorithm>([
  ['random', fromSampler({ readSettings: readRandomSettings, sampler: randomSampler, options: () => ({}) })],
  ['grid', grid],
  ['sobol', sobol],
  ['hyperband', hyperband],
  ['pbt', pbt],
]);
