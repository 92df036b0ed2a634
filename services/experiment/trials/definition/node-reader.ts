// Reading a parsed YAML document field by field, each problem recorded with its path
// (`spec.parameters[0].feasibleSpace.min`) and the reading going on, so a file's problems are all
// found at once.
import type { Problem } from './definition.ts';

export type YamlMap = Readonly<Record<string, unknown>>;

export class Problems {
  readonly list: Problem[] = [];
  add(path: string, message: string): void {
    this.list.push({ path, message });
  }
  get count(): number {
    return this.list.length;
  }
}

export const isMap = (value: unknown): value is YamlMap =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const childPath = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);
export const indexPath = (path: string, index: number): string => `${path}[${index}]`;

/** What a value is, for a message: `a list`, `the number 3`, `the text "abc"`. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return `the text ${JSON.stringify(value)}`;
  return `the ${typeof value} ${String(value)}`;
}

export interface FieldOptions {
  readonly required?: boolean;
}

/** A map field; undefined (and a problem when required or not a map) otherwise. */
export function mapField(
  map: YamlMap | undefined,
  key: string,
  path: string,
  problems: Problems,
  options: FieldOptions = {},
): YamlMap | undefined {
  const value = map?.[key];
  const at = childPath(path, key);
  if (value === undefined || value === null) {
    if (options.required) problems.add(at, 'must be specified');
    return undefined;
  }
  if (!isMap(value)) {
    problems.add(at, `must be a map, not ${describe(value)}`);
    return undefined;
  }
  return value;
}

/**
 * A text field. Kubernetes keeps these as strings; a number or boolean written without quotes is
 * taken as its text (`min: 0.01`), anything else is a problem. '' when absent.
 */
export function textField(
  map: YamlMap | undefined,
  key: string,
  path: string,
  problems: Problems,
  options: FieldOptions = {},
): string {
  const value = map?.[key];
  const at = childPath(path, key);
  if (value === undefined || value === null || value === '') {
    if (options.required) problems.add(at, 'must be specified');
    return '';
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  problems.add(at, `must be text, not ${describe(value)}`);
  return '';
}

/** An integer field; undefined when absent or wrong (with a problem). */
export function intField(
  map: YamlMap | undefined,
  key: string,
  path: string,
  problems: Problems,
): number | undefined {
  const value = map?.[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 2 ** 31 - 1) return value;
  problems.add(childPath(path, key), `must be a whole number, not ${describe(value)}`);
  return undefined;
}

/** A number field; undefined when absent or wrong (with a problem). */
export function numberField(
  map: YamlMap | undefined,
  key: string,
  path: string,
  problems: Problems,
): number | undefined {
  const value = map?.[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  problems.add(childPath(path, key), `must be a number, not ${describe(value)}`);
  return undefined;
}

/** A list field; [] when absent or wrong (with a problem). */
export function listField(
  map: YamlMap | undefined,
  key: string,
  path: string,
  problems: Problems,
  options: FieldOptions = {},
): readonly unknown[] {
  const value = map?.[key];
  const at = childPath(path, key);
  if (value === undefined || value === null) {
    if (options.required) problems.add(at, 'must be specified');
    return [];
  }
  if (!Array.isArray(value)) {
    problems.add(at, `must be a list, not ${describe(value)}`);
    return [];
  }
  return value;
}

/** A list of texts; each item that is not text is a problem. */
export function textListField(
  map: YamlMap | undefined,
  key: string,
  path: string,
  problems: Problems,
  options: FieldOptions = {},
): string[] {
  const at = childPath(path, key);
  return listField(map, key, path, problems, options).flatMap((item, i) => {
    if (typeof item === 'string') return [item];
    if (typeof item === 'number' || typeof item === 'boolean') return [String(item)];
    problems.add(indexPath(at, i), `must be text, not ${describe(item)}`);
    return [];
  });
}

/** Fields of `map` that are not among `known`: each a problem (a misspelt field would otherwise be ignored). */
export function unknownFields(
  map: YamlMap | undefined,
  known: readonly string[],
  path: string,
  problems: Problems,
): void {
  if (!map) return;
  for (const key of Object.keys(map))
    if (!known.includes(key)) {
      const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
      problems.add(childPath(path, key), `unknown field${near ? ` (did you mean ${near}?)` : ''}`);
    }
}

/** A string → string map (labels, annotations); {} when absent. */
export function textMapField(
  map: YamlMap | undefined,
  key: string,
  path: string,
  problems: Problems,
): Record<string, string> {
  const value = mapField(map, key, path, problems);
  const out: Record<string, string> = {};
  for (const k of Object.keys(value ?? {})) out[k] = textField(value, k, childPath(path, key), problems);
  return out;
}
