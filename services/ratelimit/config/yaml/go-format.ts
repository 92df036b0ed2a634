import type { YamlNode } from './nodes.ts';

/** Go's `%v` of what yaml.v2 decodes into an `interface{}` (reference pitfall: `0.25`, list element `a`). */
export function goFormat(node: YamlNode): string {
  if (node.kind === 'seq') return `[${node.items.map(goFormat).join(' ')}]`;
  if (node.kind === 'map') {
    // fmt prints maps sorted by key; keys of mixed types are grouped by type.
    const pairs = node.pairs.map((pair) => [goFormat(pair.key), goFormat(pair.value), pair.key] as const);
    pairs.sort(
      ([a, , ka], [b, , kb]) => typeRank(ka).localeCompare(typeRank(kb)) || compareKeys(ka, kb, a, b),
    );
    return `map[${pairs.map(([key, value]) => `${key}:${value}`).join(' ')}]`;
  }
  switch (node.tag) {
    case 'null':
      return '<nil>';
    case 'float':
      return goFloat(node.value as number);
    case 'bool':
    case 'int':
    case 'uint':
      return String(node.value);
    default:
      return node.text;
  }
}

function typeRank(node: YamlNode): string {
  return node.kind === 'scalar' ? node.tag : node.kind;
}

function compareKeys(a: YamlNode, b: YamlNode, textA: string, textB: string): number {
  if (
    a.kind === 'scalar' &&
    b.kind === 'scalar' &&
    typeof a.value !== 'string' &&
    typeof b.value !== 'string'
  ) {
    return Number(a.value) - Number(b.value);
  }
  return textA < textB ? -1 : textA > textB ? 1 : 0;
}

/** strconv.FormatFloat(f, 'g', -1, 64) as `%v` uses it: shortest digits, exponent form below 1e-4 or from 1e6. */
export function goFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(value);
}
