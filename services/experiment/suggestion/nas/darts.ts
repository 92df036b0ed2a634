// darts: Katib's DartsService. No search here: the trial image runs DARTS itself; the service
// checks the operations and settings and hands the trial its configuration, the same for every
// trial of the call (reference §3.4 "darts"). Unlike Katib's, a second call works.

import { invalidArgument } from '../../../../shared/errors.ts';
import { readFloat, readInt } from '../../common/katib-numbers.ts';
import type { Algorithm } from '../algorithm.ts';
import { checkOperations, katibText, PythonFloat, parameterValues } from './space.ts';

/** Katib's defaults, in its order: user settings override them, or are appended, as text. */
export const DARTS_DEFAULTS: ReadonlyArray<readonly [string, number | PythonFloat]> = [
  ['num_epochs', 50],
  ['w_lr', new PythonFloat(0.025)],
  ['w_lr_min', new PythonFloat(0.001)],
  ['w_momentum', new PythonFloat(0.9)],
  ['w_weight_decay', new PythonFloat(3e-4)],
  ['w_grad_clip', new PythonFloat(5.0)],
  ['alpha_lr', new PythonFloat(3e-4)],
  ['alpha_weight_decay', new PythonFloat(1e-3)],
  ['batch_size', 128],
  ['num_workers', 4],
  ['init_channels', 16],
  ['print_step', 50],
  ['num_nodes', 4],
  ['stem_multiplier', 3],
];

export interface DartsSettings {
  /** Settings as the trial gets them: defaults, then the request's (text; "None" → null). */
  readonly settings: ReadonlyMap<string, unknown>;
}

const NON_NEGATIVE_FLOATS = new Set([
  'w_lr',
  'w_lr_min',
  'alpha_lr',
  'w_weight_decay',
  'alpha_weight_decay',
  'w_momentum',
  'w_grad_clip',
]);
const AT_LEAST_ONE = new Set(['init_channels', 'print_step', 'num_nodes', 'stem_multiplier']);

/** Katib's validate_algorithm_settings: known names checked, unknown names accepted. */
export function readDartsSettings(settings: ReadonlyMap<string, string>): DartsSettings {
  for (const [name, value] of settings) {
    if (name === 'num_epochs' && !(readInt(name, value) > 0))
      throw invalidArgument(`${name} should be greater than zero`);
    if (NON_NEGATIVE_FLOATS.has(name) && !(readFloat(name, value) >= 0))
      throw invalidArgument(`${name} should be greater than or equal to zero`);
    if (name === 'batch_size' && value !== 'None' && !(readInt(name, value) >= 1))
      throw invalidArgument('batch_size should be greater than or equal to one');
    if (name === 'num_workers' && !(readInt(name, value) >= 0))
      throw invalidArgument('num_workers should be greater than or equal to zero');
    if (AT_LEAST_ONE.has(name) && !(readInt(name, value) >= 1))
      throw invalidArgument(`${name} should be greater than or equal to one`);
  }
  const merged = new Map<string, unknown>(DARTS_DEFAULTS);
  for (const [name, value] of settings) merged.set(name, value === 'None' ? null : value);
  return { settings: merged };
}

/** Katib's get_search_space: skip_connection as is, else "{type}_{v}x{v}" per value of the first parameter. */
export function dartsSearchSpace(nasConfig: Parameters<typeof checkOperations>[0]): string[] {
  const out: string[] = [];
  for (const operation of checkOperations(nasConfig)) {
    const type = operation.operation_type;
    if (type === 'skip_connection') {
      out.push(type);
      continue;
    }
    const first = operation.parameter_specs!.parameters[0]!;
    const values = parameterValues(type, first)?.values ?? first.feasible_space?.list ?? [];
    for (const value of values) {
      const text =
        typeof value === 'number' && String(first.parameter_type) === 'DOUBLE'
          ? katibText(new PythonFloat(value))
          : String(value);
      out.push(`${type}_${text}x${text}`);
    }
  }
  return out;
}

export const darts: Algorithm<DartsSettings> = {
  checkNasConfig(nasConfig) {
    dartsSearchSpace(nasConfig);
  },
  readSettings: readDartsSettings,
  suggest({ experiment, config, count }) {
    const settingsText = katibText(config.settings);
    const spaceText = katibText(dartsSearchSpace(experiment.nasConfig ?? null));
    const layers = String(experiment.nasConfig?.graph_config?.num_layers ?? 0);
    return {
      suggestions: Array.from({ length: count }, () => ({
        assignments: [
          { name: 'algorithm-settings', value: settingsText },
          { name: 'search-space', value: spaceText },
          { name: 'num-layers', value: layers },
        ],
      })),
    };
  },
};
