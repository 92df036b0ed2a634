/**
 * A YAML document as gopkg.in/yaml.v2 sees it: scalars keep their source text (a Go `string` field
 * receives the text, not the resolved value) and every node knows its 1-based line for error messages.
 */
export type ScalarTag = 'null' | 'bool' | 'int' | 'uint' | 'float' | 'str' | 'timestamp' | 'binary';

export type ScalarValue = null | boolean | bigint | number | string;

export interface YamlScalar {
  readonly kind: 'scalar';
  /** `int` fits a Go int64; `uint` is a uint64 above it (yaml.v2 hands those out as uint64). */
  readonly tag: ScalarTag;
  /** The scalar's content (after unquoting), what yaml.v2 stores into a Go string. */
  readonly text: string;
  readonly value: ScalarValue;
  readonly line: number;
}

export interface YamlPair {
  readonly key: YamlNode;
  readonly value: YamlNode;
}

export interface YamlMap {
  readonly kind: 'map';
  readonly pairs: readonly YamlPair[];
  readonly line: number;
}

export interface YamlSeq {
  readonly kind: 'seq';
  readonly items: readonly YamlNode[];
  readonly line: number;
}

export type YamlNode = YamlScalar | YamlMap | YamlSeq;

export function nullScalar(line: number): YamlScalar {
  return { kind: 'scalar', tag: 'null', text: '', value: null, line };
}

/** The yaml.v2 short tag used in its error messages (`!!str`, `!!map`, ...). */
export function shortTag(node: YamlNode): string {
  if (node.kind === 'map') return '!!map';
  if (node.kind === 'seq') return '!!seq';
  return node.tag === 'uint' ? '!!int' : `!!${node.tag}`;
}
