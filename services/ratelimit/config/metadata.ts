import type { MetadataValue } from './types.ts';
import { goFormat } from './yaml/go-format.ts';
import type { YamlMap, YamlNode } from './yaml/nodes.ts';

/** A descriptor's `metadata` as the google.protobuf.Struct the reference makes of it (numbers become doubles). */
export function toMetadata(map: YamlMap): { readonly [key: string]: MetadataValue } {
  const struct: Record<string, MetadataValue> = {};
  for (const { key, value } of map.pairs) {
    struct[key.kind === 'scalar' && key.tag !== 'null' ? key.text : goFormat(key)] = toValue(value);
  }
  return Object.freeze(struct);
}

function toValue(node: YamlNode): MetadataValue {
  if (node.kind === 'map') return toMetadata(node);
  if (node.kind === 'seq') return Object.freeze(node.items.map(toValue));
  switch (node.tag) {
    case 'null':
      return null;
    case 'bool':
      return node.value as boolean;
    case 'int':
    case 'uint':
    case 'float':
      return Number(node.value);
    case 'binary':
      return node.text.replaceAll(/\s/g, '');
    default:
      return node.text;
  }
}
