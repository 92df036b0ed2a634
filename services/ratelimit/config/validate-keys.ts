import { goFormat } from './yaml/go-format.ts';
import type { YamlMap } from './yaml/nodes.ts';

const VALID_KEYS = new Set([
  'domain',
  'key',
  'value',
  'descriptors',
  'rate_limit',
  'unit',
  'requests_per_unit',
  'unlimited',
  'shadow_mode',
  'quota_mode',
  'name',
  'replaces',
  'detailed_metric',
  'value_to_metric',
  'share_threshold',
  'metadata',
  // Beyond the reference (docs/ratelimit-algorithms.md): windows of several units, the algorithm,
  // a token bucket's capacity, several limits on one descriptor.
  'unit_multiplier',
  'algorithm',
  'burst',
  'rate_limits',
]);

/**
 * envoyproxy/ratelimit `validateYamlKeys`: a flat whitelist applied at every depth (not per
 * position), lists may only hold maps, and leaves must be strings, ints, booleans or null.
 * Returns the first problem in document order (Go's map order is random, ours is stable).
 */
export function findKeyProblem(map: YamlMap): string | undefined {
  for (const { key, value } of map.pairs) {
    if (key.kind !== 'scalar' || (key.tag !== 'str' && key.tag !== 'timestamp')) {
      return `config error, key is not of type string: ${goFormat(key)}`;
    }
    if (!VALID_KEYS.has(key.text)) return `config error, unknown key '${key.text}'`;
    if (key.text === 'metadata') continue;
    if (value.kind === 'seq') {
      for (const item of value.items) {
        if (item.kind !== 'map')
          return `config error, yaml file contains list of type other than map: ${goFormat(item)}`;
        const problem = findKeyProblem(item);
        if (problem !== undefined) return problem;
      }
    } else if (value.kind === 'map') {
      const problem = findKeyProblem(value);
      if (problem !== undefined) return problem;
    } else if (value.tag === 'float' || value.tag === 'uint') {
      return 'error checking config';
    }
  }
  return undefined;
}
