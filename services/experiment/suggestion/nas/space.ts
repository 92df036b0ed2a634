// NasConfig as Katib's NAS services read it (reference §3.4 "enas", "darts", "validate_operations"):
// the checks with Katib's messages (protobuf text format of the offending message included), and
// the search space ENAS builds: every operation expanded to the product of its parameters' values,
// op ids numbered across operations.

import type { GraphConfig__Output } from '../../../../proto/gen/api/v1/beta1/GraphConfig.ts';
import type { NasConfig__Output } from '../../../../proto/gen/api/v1/beta1/NasConfig.ts';
import type { Operation__Output } from '../../../../proto/gen/api/v1/beta1/Operation.ts';
import type { ParameterSpec__Output } from '../../../../proto/gen/api/v1/beta1/ParameterSpec.ts';
import { invalidArgument } from '../../../../shared/errors.ts';
import { parseFinite, parsePythonInt, pythonFloatRepr } from '../../common/katib-numbers.ts';

/** More operations than this (after expansion) is a mistake in the experiment, not a search space. */
export const MAX_OPERATIONS = 4096;
/** More layers than this: the controller's sequence and the architecture text grow as layers². */
export const MAX_LAYERS = 128;

/** A parameter value of an expanded operation: INT and DOUBLE as numbers, CATEGORICAL as text. */
export type OpParamValue = number | string;

export interface NasOperation {
  readonly id: number;
  readonly type: string;
  /** Parameter name → value, in the operation's parameter order. */
  readonly params: ReadonlyArray<readonly [string, OpParamValue, 'int' | 'double' | 'text']>;
}

export interface NasSpace {
  readonly numLayers: number;
  readonly inputSizes: readonly number[];
  readonly outputSizes: readonly number[];
  readonly operations: readonly NasOperation[];
}

// --- protobuf text format (what Python's str(message) prints), for Katib's messages ---

const quote = (text: string): string =>
  `"${[...Buffer.from(text, 'utf8')]
    .map((b) => {
      if (b === 0x22) return '\\"';
      if (b === 0x5c) return '\\\\';
      if (b === 0x0a) return '\\n';
      if (b === 0x0d) return '\\r';
      if (b === 0x09) return '\\t';
      if (b === 0x27) return "\\'";
      if (b < 0x20 || b >= 0x7f) return `\\${b.toString(8).padStart(3, '0')}`;
      return String.fromCharCode(b);
    })
    .join('')}"`;

export function graphConfigText(graph: GraphConfig__Output | null): string {
  if (graph === null) return '';
  const lines: string[] = [];
  if (graph.num_layers !== 0) lines.push(`num_layers: ${graph.num_layers}`);
  for (const size of graph.input_sizes) lines.push(`input_sizes: ${size}`);
  for (const size of graph.output_sizes) lines.push(`output_sizes: ${size}`);
  return lines.map((line) => `${line}\n`).join('');
}

export function parameterText(parameter: ParameterSpec__Output, indent = ''): string {
  const lines: string[] = [];
  if (parameter.name !== '') lines.push(`${indent}name: ${quote(parameter.name)}`);
  const type = String(parameter.parameter_type);
  if (type !== 'UNKNOWN_TYPE' && type !== '0') lines.push(`${indent}parameter_type: ${type}`);
  const space = parameter.feasible_space;
  if (space !== null) {
    lines.push(`${indent}feasible_space {`);
    const inner = `${indent}  `;
    if (space.max !== '') lines.push(`${inner}max: ${quote(space.max)}`);
    if (space.min !== '') lines.push(`${inner}min: ${quote(space.min)}`);
    for (const value of space.list) lines.push(`${inner}list: ${quote(value)}`);
    if (space.step !== '') lines.push(`${inner}step: ${quote(space.step)}`);
    const distribution = String(space.distribution);
    if (distribution !== 'DISTRIBUTION_UNSPECIFIED' && distribution !== '0')
      lines.push(`${inner}distribution: ${distribution}`);
    lines.push(`${indent}}`);
  }
  return lines.map((line) => `${line}\n`).join('');
}

export function operationText(operation: Operation__Output): string {
  let text = operation.operation_type === '' ? '' : `operation_type: ${quote(operation.operation_type)}\n`;
  if (operation.parameter_specs !== null) {
    text += 'parameter_specs {\n';
    for (const parameter of operation.parameter_specs.parameters)
      text += `  parameters {\n${parameterText(parameter, '    ')}  }\n`;
    text += '}\n';
  }
  return text;
}

// --- checks ---

/** ENAS: InputSizes, OutputSizes, NumLayers, in Katib's order and words. */
export function checkGraphConfig(nas: NasConfig__Output | null): GraphConfig__Output {
  const graph = nas?.graph_config ?? null;
  const text = graphConfigText(graph);
  if (graph === null || graph.input_sizes.length === 0)
    throw invalidArgument(`Missing InputSizes in GraphConfig:\n${text}`);
  if (graph.output_sizes.length === 0) throw invalidArgument(`Missing OutputSizes in GraphConfig:\n${text}`);
  if (graph.num_layers === 0) throw invalidArgument(`Missing NumLayers in GraphConfig:\n${text}`);
  // Beyond Katib (which builds a broken controller): a layer count that cannot be a network.
  if (graph.num_layers < 0 || graph.num_layers > MAX_LAYERS)
    throw invalidArgument(
      `NumLayers in GraphConfig must be between 1 and ${MAX_LAYERS}, got ${graph.num_layers}:\n${text}`,
    );
  return graph;
}

/** Katib's validate_operations, same order and messages. */
export function checkOperations(nas: NasConfig__Output | null): readonly Operation__Output[] {
  const operations = nas?.operations?.operation ?? [];
  for (const operation of operations) {
    if (operation.operation_type === '')
      throw invalidArgument(`Missing operationType in Operation:\n${operationText(operation)}`);
    const parameters = operation.parameter_specs?.parameters ?? [];
    if (parameters.length === 0)
      throw invalidArgument(`Missing ParameterConfigs in Operation:\n${operationText(operation)}`);
    for (const parameter of parameters) {
      const type = String(parameter.parameter_type);
      const space = parameter.feasible_space;
      if (parameter.name === '')
        throw invalidArgument(`Missing Name in ParameterConfig:\n${parameterText(parameter)}`);
      if (type === 'UNKNOWN_TYPE' || type === '0')
        throw invalidArgument(`Missing ParameterType in ParameterConfig:\n${parameterText(parameter)}`);
      if (type === 'CATEGORICAL' || type === 'DISCRETE') {
        if ((space?.list ?? []).length === 0)
          throw invalidArgument(
            `Missing List in ParameterConfig.feasibleSpace:\n${parameterText(parameter)}`,
          );
      } else if (type === 'INT' || type === 'DOUBLE') {
        if ((space?.min ?? '') === '' && (space?.max ?? '') === '')
          throw invalidArgument(
            `Missing Max and Min in ParameterConfig.feasibleSpace:\n${parameterText(parameter)}`,
          );
        if (type === 'DOUBLE') {
          const step = parseFinite(space?.step ?? '');
          if ((space?.step ?? '') === '' || step === undefined || step <= 0)
            throw invalidArgument(
              `Step parameter should be > 0 in ParameterConfig.feasibleSpace:\n${parameterText(parameter)}`,
            );
        }
      }
    }
  }
  return operations;
}

// --- the search space ---

/** The values one parameter contributes; INVALID_ARGUMENT where Katib's Python would crash. */
export function parameterValues(
  operationType: string,
  parameter: ParameterSpec__Output,
): { values: OpParamValue[]; kind: 'int' | 'double' | 'text' } | undefined {
  const type = String(parameter.parameter_type);
  const space = parameter.feasible_space;
  const where = `operation ${operationType}, parameter ${parameter.name}`;
  if (type === 'CATEGORICAL') return { values: [...(space?.list ?? [])], kind: 'text' };
  if (type === 'INT') {
    const read = (field: 'min' | 'max' | 'step', fallback?: number): number => {
      const text = space?.[field] ?? '';
      if (text === '' && fallback !== undefined) return fallback;
      const value = parsePythonInt(text);
      if (value === undefined || !Number.isSafeInteger(value))
        throw invalidArgument(`${where}: INT ${field} "${text}" is not a whole number`);
      return value;
    };
    const min = read('min');
    const max = read('max');
    // Katib's int('') fails; an INT without step means step 1 everywhere else in Katib.
    const step = read('step', 1);
    if (step <= 0) throw invalidArgument(`${where}: INT step ${step} must be greater than zero`);
    const values: number[] = [];
    for (let v = min; v <= max; v += step) {
      values.push(v);
      if (values.length > MAX_OPERATIONS) break;
    }
    if (values.length === 0) throw invalidArgument(`${where}: min ${min} is greater than max ${max}`);
    return { values, kind: 'int' };
  }
  if (type === 'DOUBLE') {
    const min = parseFinite(space?.min ?? '');
    const max = parseFinite(space?.max ?? '');
    const step = parseFinite(space?.step ?? '')!;
    if (min === undefined)
      throw invalidArgument(`${where}: DOUBLE min "${space?.min ?? ''}" is not a number`);
    if (max === undefined)
      throw invalidArgument(`${where}: DOUBLE max "${space?.max ?? ''}" is not a number`);
    if (min > max) throw invalidArgument(`${where}: min ${min} is greater than max ${max}`);
    // np.arange(min, max + step, step), without a last value above max.
    const count = Math.ceil((max + step - min) / step);
    if (count > MAX_OPERATIONS)
      throw invalidArgument(`${where}: more than ${MAX_OPERATIONS} values from ${min} to ${max} by ${step}`);
    const increment = min + step - min;
    const values: number[] = [];
    for (let i = 0; i < count; i++) values.push(min + i * increment);
    // Katib deletes one last value above max (numpy may leave 0.30000000000000004 for max 0.3).
    if (values.length > 1 && values.at(-1)! > max) values.pop();
    return { values, kind: 'double' };
  }
  // Katib's SearchSpace leaves DISCRETE (and anything else) out of the operation's parameters.
  return undefined;
}

export function buildSearchSpace(
  graph: GraphConfig__Output,
  operations: readonly Operation__Output[],
): NasSpace {
  const expanded: NasOperation[] = [];
  for (const operation of operations) {
    // A dict by name: a repeated name keeps its first place and its last values, as in Python.
    const byName = new Map<string, { values: OpParamValue[]; kind: 'int' | 'double' | 'text' }>();
    for (const parameter of operation.parameter_specs?.parameters ?? []) {
      const values = parameterValues(operation.operation_type, parameter);
      if (values !== undefined) byName.set(parameter.name, values);
    }
    const names = [...byName.keys()];
    const lists = [...byName.values()];
    // itertools.product: the last parameter varies fastest.
    let combos: OpParamValue[][] = [[]];
    for (const { values } of lists) {
      const next: OpParamValue[][] = [];
      for (const combo of combos) for (const value of values) next.push([...combo, value]);
      combos = next;
      if (combos.length + expanded.length > MAX_OPERATIONS) break;
    }
    for (const combo of combos) {
      if (expanded.length >= MAX_OPERATIONS)
        throw invalidArgument(
          `nas_config.operations expand to more than ${MAX_OPERATIONS} operations (each operation is the product of its parameters' values)`,
        );
      expanded.push({
        id: expanded.length,
        type: operation.operation_type,
        params: names.map((name, i) => [name, combo[i]!, lists[i]!.kind] as const),
      });
    }
  }
  if (expanded.length === 0) throw invalidArgument('Missing Operations in NasConfig: no operation to search');
  return {
    numLayers: graph.num_layers,
    inputSizes: [...graph.input_sizes],
    outputSizes: [...graph.output_sizes],
    operations: expanded,
  };
}

// --- Katib's reply texts: json.dumps(...) then '"' → "'" ---

/** A JSON text as Python's json.dumps writes it (", " and ": " separators, floats as repr). */
export function pythonJson(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number')
    return Number.isInteger(value) && !Object.is(value, -0) ? String(value) : pythonFloatRepr(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value instanceof PythonFloat) return pythonFloatRepr(value.value);
  // A Map keeps insertion order for every key ("3" before "0"), as a Python dict does.
  const entries =
    value instanceof Map ? [...value.entries()] : Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
}

/** A number that Python holds as a float (written 2.0, not 2). */
export class PythonFloat {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

export const katibText = (value: unknown): string => pythonJson(value).replaceAll('"', "'");

/** An operation as Katib's Operation.get_dict(): {'opt_id', 'opt_type', 'opt_params'}. */
export function operationDict(operation: NasOperation): Map<string, unknown> {
  const params = new Map<string, unknown>();
  for (const [name, value, kind] of operation.params)
    params.set(name, kind === 'double' ? new PythonFloat(value as number) : value);
  return new Map<string, unknown>([
    ['opt_id', operation.id],
    ['opt_type', operation.type],
    ['opt_params', params],
  ]);
}
