import { ConfigError } from './config-error.ts';
import { toMetadata } from './metadata.ts';
import { findKeyProblem } from './validate-keys.ts';
import { GoYamlError } from './yaml/go-yaml-error.ts';
import type { YamlMap, YamlNode } from './yaml/nodes.ts';
import { shortTag } from './yaml/nodes.ts';
import { parseGoYaml } from './yaml/parse.ts';
import { TypedDecoder } from './yaml/typed-decoder.ts';
import type { YamlDescriptor, YamlRateLimit, YamlRoot } from './yaml-model.ts';

/**
 * Step A of the reference's load pipeline (`ConfigFileContentToYaml`): parse, check every key,
 * then decode into the typed model. Throws ConfigError with the reference's exact text.
 */
export function readDocument(fileName: string, text: string): YamlRoot {
  const fail = (problem: string): never => {
    throw new ConfigError(fileName, problem);
  };
  let root: YamlMap;
  try {
    root = asGenericMap(parseGoYaml(text));
  } catch (error) {
    if (error instanceof GoYamlError) return fail(`error loading config file: ${error.message}`);
    throw error;
  }
  const keyProblem = findKeyProblem(root);
  if (keyProblem !== undefined) fail(keyProblem);

  const decoder = new TypedDecoder();
  const decoded = decodeRoot(decoder, root);
  if (decoder.errors.length > 0) {
    fail(`error loading config file: yaml: unmarshal errors:\n  ${decoder.errors.join('\n  ')}`);
  }
  return decoded;
}

/** yaml.Unmarshal into `map[interface{}]interface{}`: an empty document is an empty map. */
function asGenericMap(document: YamlNode | null): YamlMap {
  if (document === null) return { kind: 'map', pairs: [], line: 1 };
  if (document.kind !== 'map') {
    const value = document.kind === 'scalar' ? ` \`${document.text}\`` : '';
    throw new GoYamlError(
      `yaml: unmarshal errors:\n  line ${document.line}: cannot unmarshal ${shortTag(document)}${value} into map[interface {}]interface {}`,
    );
  }
  assertHashableKeys(document);
  return document;
}

/** A mapping or list used as a key cannot go into a Go map. */
function assertHashableKeys(node: YamlNode): void {
  if (node.kind === 'seq') node.items.forEach(assertHashableKeys);
  if (node.kind !== 'map') return;
  for (const { key, value } of node.pairs) {
    if (key.kind !== 'scalar') throw new GoYamlError(`yaml: invalid map key: ${describeKey(key)}`);
    assertHashableKeys(value);
  }
}

function describeKey(key: YamlNode): string {
  return key.kind === 'map' ? 'map[interface {}]interface {}{...}' : '[]interface {}{...}';
}

function decodeRoot(decoder: TypedDecoder, root: YamlMap): YamlRoot {
  const fields = new Map(
    root.pairs.map((pair) => [pair.key.kind === 'scalar' ? pair.key.text : '', pair.value]),
  );
  const domain = fields.get('domain');
  const descriptors = fields.get('descriptors');
  return {
    domain: domain === undefined ? '' : decoder.string(domain),
    descriptors: descriptors === undefined ? [] : decodeDescriptors(decoder, descriptors),
  };
}

function decodeDescriptors(decoder: TypedDecoder, node: YamlNode): YamlDescriptor[] {
  return decoder.slice(node, '[]config.YamlDescriptor', (item) =>
    decoder.struct(item, 'config.YamlDescriptor', (fields) => {
      const get = <T>(name: string, decode: (field: YamlNode) => T, zero: T): T => {
        const field = fields.get(name);
        return field === undefined ? zero : decode(field);
      };
      const metadata = get(
        'metadata',
        (field) => decoder.stringMap(field, 'map[string]interface {}'),
        undefined,
      );
      return {
        key: get('key', (field) => decoder.string(field), ''),
        value: get('value', (field) => decoder.string(field), ''),
        rateLimit: get('rate_limit', (field) => decodeRateLimit(decoder, field), undefined),
        rateLimits: get(
          'rate_limits',
          (field) =>
            decoder.slice(field, '[]config.YamlRateLimit', (entry) => decodeRateLimit(decoder, entry)),
          undefined,
        ),
        misplaced: RATE_LIMIT_ONLY_KEYS.filter((name) => fields.has(name)),
        descriptors: get('descriptors', (field) => decodeDescriptors(decoder, field), []),
        shadowMode: get('shadow_mode', (field) => decoder.bool(field), false),
        quotaMode: get('quota_mode', (field) => decoder.bool(field), false),
        detailedMetric: get('detailed_metric', (field) => decoder.bool(field), false),
        valueToMetric: get('value_to_metric', (field) => decoder.bool(field), false),
        shareThreshold: get('share_threshold', (field) => decoder.bool(field), false),
        metadata: metadata === undefined ? undefined : toMetadata(metadata),
      };
    }),
  );
}

function decodeRateLimit(decoder: TypedDecoder, node: YamlNode): YamlRateLimit | undefined {
  return decoder.struct(node, 'config.YamlRateLimit', (fields) => {
    const requestsPerUnit = fields.get('requests_per_unit');
    const unit = fields.get('unit');
    const unlimited = fields.get('unlimited');
    const name = fields.get('name');
    const replaces = fields.get('replaces');
    const unitMultiplier = fields.get('unit_multiplier');
    const algorithm = fields.get('algorithm');
    const burst = fields.get('burst');
    return {
      requestsPerUnit: requestsPerUnit === undefined ? 0 : decoder.uint32(requestsPerUnit),
      unit: unit === undefined ? '' : decoder.string(unit),
      unlimited: unlimited === undefined ? false : decoder.bool(unlimited),
      name: name === undefined ? '' : decoder.string(name),
      replaces:
        replaces === undefined
          ? []
          : decoder.slice(
              replaces,
              '[]config.yamlReplaces',
              (item) =>
                decoder.struct(item, 'config.yamlReplaces', (entry) => {
                  const entryName = entry.get('name');
                  return entryName === undefined ? '' : decoder.string(entryName);
                }) ?? '',
            ),
      unitMultiplier: optionalUint32(decoder, unitMultiplier),
      algorithm: algorithm === undefined ? '' : decoder.string(algorithm),
      burst: optionalUint32(decoder, burst),
    };
  });
}

/** A number, or undefined when the key is left out or given no value (`burst:`): the default applies. */
function optionalUint32(decoder: TypedDecoder, node: YamlNode | undefined): number | undefined {
  if (node === undefined || (node.kind === 'scalar' && node.tag === 'null')) return undefined;
  return decoder.uint32(node);
}

/** Keys of a rate limit that a descriptor does not read: written there, they are refused, not ignored. */
const RATE_LIMIT_ONLY_KEYS = ['unit_multiplier', 'algorithm', 'burst'] as const;
