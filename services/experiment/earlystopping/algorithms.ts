// Every early-stopping algorithm by name: Katib's medianstop (rules, judged as Katib's collector
// judges them) and the pruners (judged step by step by our early-stopping judge).
import { invalidArgument } from '../../../shared/errors.ts';
import { MEDIANSTOP, type MedianStopSettings, readMedianStopSettings } from './medianstop.ts';
import { PRUNER_NAMES, type PrunerSpec, readPrunerSpec } from './pruners/pruner.ts';
import type { Setting } from './pruners/settings.ts';

export type AlgorithmSpec =
  | { readonly algorithm: typeof MEDIANSTOP; readonly settings: MedianStopSettings }
  | PrunerSpec;

export const ALGORITHM_NAMES: readonly string[] = [MEDIANSTOP, ...PRUNER_NAMES];

/** Reads Katib's EarlyStoppingSpec; INVALID_ARGUMENT for an unknown algorithm or a bad setting. */
export function readAlgorithmSpec(spec: {
  readonly algorithmName: string;
  readonly settings: readonly Setting[];
}): AlgorithmSpec {
  if (spec.algorithmName === MEDIANSTOP)
    return { algorithm: MEDIANSTOP, settings: readMedianStopSettings(spec) };
  const pruner = readPrunerSpec(spec.algorithmName, spec.settings);
  // Katib's message, word for word.
  if (pruner === undefined) throw invalidArgument(`unknown algorithm name ${spec.algorithmName}`);
  return pruner;
}

export const isPruner = (spec: AlgorithmSpec): spec is PrunerSpec => spec.algorithm !== MEDIANSTOP;
