import type { YamlMap, YamlNode } from './nodes.ts';
import { shortTag } from './nodes.ts';

/**
 * Decoding into Go-typed fields with yaml.v2's rules: null gives the zero value, any non-null
 * scalar fills a string with its text, and a mismatch is recorded (decoding goes on) as
 * `line N: cannot unmarshal !!tag `value` into <Go type>`.
 */
export class TypedDecoder {
  readonly errors: string[] = [];

  string(node: YamlNode): string {
    if (node.kind === 'scalar') {
      if (node.tag === 'null') return '';
      return node.tag === 'binary' ? decodeBase64(node.text) : node.text;
    }
    return this.#mismatch(node, 'string', '');
  }

  bool(node: YamlNode): boolean {
    if (node.kind === 'scalar' && node.tag === 'null') return false;
    if (node.kind === 'scalar' && node.tag === 'bool') return node.value as boolean;
    return this.#mismatch(node, 'bool', false);
  }

  uint32(node: YamlNode): number {
    if (node.kind === 'scalar') {
      if (node.tag === 'null') return 0;
      if (node.tag === 'int' || node.tag === 'uint') {
        const value = node.value as bigint;
        if (value >= 0n && value <= 0xffff_ffffn) return Number(value);
      }
      if (node.tag === 'float') {
        const value = Math.trunc(node.value as number);
        if (value >= 0 && value <= 0xffff_ffff) return value;
      }
    }
    return this.#mismatch(node, 'uint32', 0);
  }

  /** A struct: null gives `undefined` (a nil pointer); keys without a field are ignored (non-strict). */
  struct<T>(
    node: YamlNode,
    goType: string,
    decodeFields: (fields: ReadonlyMap<string, YamlNode>) => T,
  ): T | undefined {
    if (isNull(node)) return undefined;
    if (node.kind !== 'map') return this.#mismatch(node, goType, undefined);
    return decodeFields(fieldsOf(node));
  }

  slice<T>(node: YamlNode, goType: string, decodeItem: (item: YamlNode) => T | undefined): T[] {
    if (isNull(node)) return [];
    if (node.kind !== 'seq') return this.#mismatch(node, goType, []);
    return node.items.flatMap((item) => {
      const decoded = decodeItem(item);
      return decoded === undefined ? [] : [decoded];
    });
  }

  /** `map[string]interface {}`: a mapping whose values are kept as YAML nodes. */
  stringMap(node: YamlNode, goType: string): YamlMap | undefined {
    if (isNull(node)) return undefined;
    if (node.kind !== 'map') return this.#mismatch(node, goType, undefined);
    return node;
  }

  #mismatch<T>(node: YamlNode, goType: string, zero: T): T {
    const tag = shortTag(node);
    let value = '';
    if (node.kind === 'scalar') {
      const bytes = new TextEncoder().encode(node.text);
      value =
        bytes.length > 10 ? ` \`${new TextDecoder().decode(bytes.slice(0, 7))}...\`` : ` \`${node.text}\``;
    }
    this.errors.push(`line ${node.line}: cannot unmarshal ${tag}${value} into ${goType}`);
    return zero;
  }
}

function isNull(node: YamlNode): boolean {
  return node.kind === 'scalar' && node.tag === 'null';
}

/** Struct field lookup: yaml.v2 decodes each key into a string (its text); the last duplicate wins. */
function fieldsOf(node: YamlMap): ReadonlyMap<string, YamlNode> {
  const fields = new Map<string, YamlNode>();
  for (const { key, value } of node.pairs) {
    if (key.kind === 'scalar') fields.set(key.text, value);
  }
  return fields;
}

function decodeBase64(text: string): string {
  return Buffer.from(text, 'base64').toString('utf8');
}
