import { GoYamlError } from './go-yaml-error.ts';
import type { YamlMap, YamlNode, YamlPair, YamlScalar } from './nodes.ts';
import { nullScalar } from './nodes.ts';
import { KEY_MARK, MERGE_KEY, ScalarBox } from './scalar-box.ts';

/**
 * Turns js-yaml's result (objects, arrays, ScalarBox leaves) into YAML nodes. Aliased subtrees are
 * converted once and shared, and yaml.v2's guard against alias bombs applies: a document whose
 * decoding would mostly be alias expansion is refused ("excessive aliasing").
 */
export function toNodes(
  document: unknown,
  keys: Map<string, YamlScalar>,
  lines: WeakMap<object, number>,
): YamlNode {
  const builder = new NodeBuilder(keys, lines);
  const root = builder.build(document, 1).node;
  builder.checkAliasing();
  return root;
}

interface Built {
  readonly node: YamlNode;
  /** How many nodes yaml.v2 would decode for this subtree, aliases expanded. */
  readonly size: number;
}

class NodeBuilder {
  readonly #keys: Map<string, YamlScalar>;
  readonly #lines: WeakMap<object, number>;
  readonly #built = new WeakMap<object, Built>();
  #decodes = 0;
  #aliasDecodes = 0;

  constructor(keys: Map<string, YamlScalar>, lines: WeakMap<object, number>) {
    this.#keys = keys;
    this.#lines = lines;
  }

  build(value: unknown, line: number): Built {
    if (value instanceof ScalarBox) return this.#leaf(value.node);
    if (value === null || typeof value !== 'object') return this.#leaf(nullScalar(line));
    const seen = this.#built.get(value);
    if (seen !== undefined) {
      // Reached again: an alias, which yaml.v2 decodes again in full.
      this.#decodes += seen.size;
      this.#aliasDecodes += seen.size;
      return seen;
    }
    this.#decodes += 1;
    const built = Array.isArray(value)
      ? this.#seq(value, line)
      : this.#map(value as Record<string, unknown>, line);
    this.#built.set(value, built);
    return built;
  }

  /** yaml.v2 `allowedAliasRatio`: 99% alias decodes for small documents, scaling down to 10% for huge ones. */
  checkAliasing(): void {
    const decodes = this.#decodes;
    const allowed =
      decodes <= 400_000
        ? 0.99
        : decodes >= 4_000_000
          ? 0.1
          : 0.99 - (0.89 * (decodes - 400_000)) / 3_600_000;
    if (this.#aliasDecodes > 100 && decodes > 1000 && this.#aliasDecodes / decodes > allowed) {
      throw new GoYamlError('yaml: document contains excessive aliasing');
    }
  }

  #leaf(node: YamlNode): Built {
    this.#decodes += 1;
    return { node, size: 1 };
  }

  #seq(value: readonly unknown[], line: number): Built {
    const ownLine = this.#lines.get(value) ?? line;
    const items = value.map((item) => this.build(item, ownLine));
    return {
      node: { kind: 'seq', items: items.map((item) => item.node), line: ownLine },
      size: 1 + items.reduce((total, item) => total + item.size, 0),
    };
  }

  #map(value: Record<string, unknown>, line: number): Built {
    const ownLine = this.#lines.get(value) ?? line;
    const pairs = new Map<string, YamlPair>();
    let size = 1;
    for (const [name, child] of Object.entries(value)) {
      const built = this.build(child, ownLine);
      size += built.size + 1;
      if (name === MERGE_KEY) {
        mergeInto(pairs, built.node);
        continue;
      }
      const key = this.#keys.get(name) ?? {
        kind: 'scalar',
        tag: 'str',
        text: name,
        value: name,
        line: ownLine,
      };
      pairs.set(name, { key, value: built.node });
    }
    return { node: { kind: 'map', pairs: [...pairs.values()], line: ownLine }, size };
  }
}

/** yaml.v2 `<<`: a map, or a list of maps where earlier ones take precedence. */
function mergeInto(pairs: Map<string, YamlPair>, merged: YamlNode): void {
  const sources: YamlMap[] = [];
  if (merged.kind === 'map') sources.push(merged);
  else if (merged.kind === 'seq' && merged.items.every((item) => item.kind === 'map')) {
    sources.push(...(merged.items as YamlMap[]).toReversed());
  } else {
    throw new GoYamlError('yaml: map merge requires map or sequence of maps as the value');
  }
  for (const source of sources) {
    for (const pair of source.pairs) pairs.set(pairKey(pair.key), pair);
  }
}

function pairKey(key: YamlNode): string {
  if (key.kind !== 'scalar') return `${KEY_MARK}${key.kind}${key.line}`;
  if (key.tag === 'str' || key.tag === 'timestamp') return key.text;
  return `${KEY_MARK}${key.tag}${KEY_MARK}${String(key.value)}`;
}
