// ENAS settings: Katib's names, defaults, ranges and messages (reference §3.4 "enas"), plus
// random_state (ours: Katib's controller is seeded by nothing).

import { invalidArgument } from '../../../../shared/errors.ts';
import {
  parseDecimal,
  parsePythonInt,
  pythonFloatError,
  pythonFloatRepr,
  pythonIntError,
  readInt,
} from '../../common/katib-numbers.ts';

export interface EnasSettings {
  readonly hiddenSize: number;
  /** null: Katib's "None", the logits are not divided. */
  readonly temperature: number | null;
  /** null: no tanh squashing of the logits. */
  readonly tanhConst: number | null;
  /** null: no entropy bonus. */
  readonly entropyWeight: number | null;
  readonly baselineDecay: number;
  readonly learningRate: number;
  readonly skipTarget: number;
  /** null: no skip penalty. */
  readonly skipWeight: number | null;
  readonly trainSteps: number;
  readonly logEverySteps: number;
  readonly randomState?: number;
}

export const ENAS_DEFAULTS: EnasSettings = Object.freeze({
  hiddenSize: 64,
  temperature: 5.0,
  tanhConst: 2.25,
  entropyWeight: 1e-5,
  baselineDecay: 0.999,
  learningRate: 5e-5,
  skipTarget: 0.4,
  skipWeight: 0.8,
  trainSteps: 50,
  logEverySteps: 10,
});

type Rule =
  | { kind: 'int'; key: keyof EnasSettings; low: number }
  | {
      kind: 'float';
      key: keyof EnasSettings;
      low: number;
      high: number;
      lowText: string;
      highText: string;
      none: boolean;
    };

const RULES: ReadonlyMap<string, Rule> = new Map<string, Rule>([
  ['controller_hidden_size', { kind: 'int', key: 'hiddenSize', low: 1 }],
  [
    'controller_temperature',
    { kind: 'float', key: 'temperature', low: 0, high: Infinity, lowText: '0', highText: 'inf', none: true },
  ],
  [
    'controller_tanh_const',
    { kind: 'float', key: 'tanhConst', low: 0, high: Infinity, lowText: '0', highText: 'inf', none: true },
  ],
  [
    'controller_entropy_weight',
    {
      kind: 'float',
      key: 'entropyWeight',
      low: 0,
      high: Infinity,
      lowText: '0.0',
      highText: 'inf',
      none: true,
    },
  ],
  [
    'controller_baseline_decay',
    { kind: 'float', key: 'baselineDecay', low: 0, high: 1, lowText: '0.0', highText: '1.0', none: false },
  ],
  [
    'controller_learning_rate',
    { kind: 'float', key: 'learningRate', low: 0, high: 1, lowText: '0.0', highText: '1.0', none: false },
  ],
  [
    'controller_skip_target',
    { kind: 'float', key: 'skipTarget', low: 0, high: 1, lowText: '0.0', highText: '1.0', none: false },
  ],
  [
    'controller_skip_weight',
    { kind: 'float', key: 'skipWeight', low: 0, high: Infinity, lowText: '0.0', highText: 'inf', none: true },
  ],
  ['controller_train_steps', { kind: 'int', key: 'trainSteps', low: 1 }],
  ['controller_log_every_steps', { kind: 'int', key: 'logEverySteps', low: 1 }],
]);

/** Bounds beyond Katib's: a bigger controller would not fit the state topic or answer in time. */
export const MAX_HIDDEN_SIZE = 256;
export const MAX_TRAIN_STEPS = 10_000;

export function readEnasSettings(settings: ReadonlyMap<string, string>): EnasSettings {
  const out: Record<string, number | null> = {};
  let randomState: number | undefined;
  for (const [name, value] of settings) {
    if (name === 'random_state') {
      const seed = readInt(name, value);
      if (seed < 0) throw invalidArgument('random_state should be great or equal than zero');
      randomState = seed;
      continue;
    }
    const rule = RULES.get(name);
    if (rule === undefined) throw invalidArgument(`Unknown Algorithm Setting name: ${name}`);
    if (rule.kind === 'float' && rule.none && value === 'None') {
      out[rule.key] = null;
      continue;
    }
    if (rule.kind === 'int') {
      const parsed = parsePythonInt(value);
      if (parsed === undefined)
        throw invalidArgument(
          `Algorithm Setting ${name} must be int type: exception ${pythonIntError(value)}`,
        );
      if (parsed < rule.low)
        throw invalidArgument(
          `Algorithm Setting ${name}: ${parsed} with int type must be in range [${rule.low}, inf)`,
        );
      out[rule.key] = parsed;
    } else {
      const parsed = parseDecimal(value);
      if (parsed === undefined)
        throw invalidArgument(
          `Algorithm Setting ${name} must be float type: exception ${pythonFloatError(value)}`,
        );
      // Katib lets nan through (no comparison fails on it); a nan setting poisons the controller.
      if (Number.isNaN(parsed) || parsed <= rule.low || (rule.high !== Infinity && parsed > rule.high))
        throw invalidArgument(
          `Algorithm Setting ${name}: ${pythonFloatRepr(parsed)} with float type must be in range (${rule.lowText}, ${rule.highText})`,
        );
      out[rule.key] = parsed;
    }
  }
  const result = {
    ...ENAS_DEFAULTS,
    ...out,
    ...(randomState === undefined ? {} : { randomState }),
  } as EnasSettings;
  if (result.hiddenSize > MAX_HIDDEN_SIZE)
    throw invalidArgument(
      `Algorithm Setting controller_hidden_size: ${result.hiddenSize} is more than ${MAX_HIDDEN_SIZE}, the largest controller whose state the service keeps`,
    );
  if (result.trainSteps > MAX_TRAIN_STEPS)
    throw invalidArgument(
      `Algorithm Setting controller_train_steps: ${result.trainSteps} is more than ${MAX_TRAIN_STEPS} steps per call`,
    );
  return Object.freeze(result);
}
