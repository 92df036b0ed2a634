import type { YamlScalar } from './nodes.ts';

export const KEY_MARK = '\u0000';
export const MERGE_KEY = `${KEY_MARK}merge`;

/** A resolved scalar inside js-yaml's result; as a mapping key it stringifies to a typed, canonical form. */
export class ScalarBox {
  readonly node: YamlScalar;
  readonly #registry: Map<string, YamlScalar>;
  readonly merge: boolean;
  constructor(node: YamlScalar, registry: Map<string, YamlScalar>, merge = false) {
    this.node = node;
    this.#registry = registry;
    this.merge = merge;
  }
  get [Symbol.toStringTag](): string {
    return 'ScalarBox';
  }
  toString(): string {
    if (this.merge) return MERGE_KEY;
    const { tag, text, value } = this.node;
    if (tag === 'str' || tag === 'timestamp') return text;
    const key = `${KEY_MARK}${tag}${KEY_MARK}${String(value)}`;
    this.#registry.set(key, this.node);
    return key;
  }
}
