import { ConfigError } from './config-error.ts';
import type { ConfiguredLimit, DescriptorNode, Unit } from './types.ts';
import { UNITS } from './types.ts';
import { compileWildcard, isWildcard } from './wildcard.ts';
import type { YamlDescriptor, YamlRoot } from './yaml-model.ts';

export interface LoadedDocument {
  readonly fileName: string;
  readonly root: YamlRoot;
}

/**
 * Step B of the reference's load pipeline (`NewRateLimitConfigImpl`): domains and descriptor trees,
 * file by file in the given order. With `mergeDomainConfig` a repeated domain receives the later
 * file's descriptors (a repeated descriptor is still an error); otherwise it is an error.
 */
export function buildDomains(
  documents: readonly LoadedDocument[],
  mergeDomainConfig: boolean,
): ReadonlyMap<string, DescriptorNode> {
  const domains = new Map<string, DescriptorNode>();
  for (const { fileName, root } of documents) {
    const fail = (problem: string): never => {
      throw new ConfigError(fileName, problem);
    };
    if (root.domain === '') fail('config file cannot have empty domain');
    let domain = domains.get(root.domain);
    if (domain !== undefined && !mergeDomainConfig) fail(`duplicate domain '${root.domain}' in config file`);
    if (domain === undefined) {
      domain = emptyNode();
      domains.set(root.domain, domain);
    }
    loadDescriptors(domain, `${root.domain}.`, root.descriptors, fail);
  }
  return domains;
}

function emptyNode(): DescriptorNode {
  return { children: new Map(), wildcards: [], limit: undefined, valueToMetric: false, sharedPattern: '' };
}

function loadDescriptors(
  parent: DescriptorNode,
  parentKey: string,
  descriptors: readonly YamlDescriptor[],
  fail: (problem: string) => never,
): void {
  for (const descriptor of descriptors) {
    if (descriptor.key === '') fail('descriptor has empty key');
    const finalKey = descriptor.value === '' ? descriptor.key : `${descriptor.key}_${descriptor.value}`;
    const fullKey = parentKey + finalKey;
    if (parent.children.has(finalKey)) fail(`duplicate descriptor composite key '${fullKey}'`);

    const limit = descriptor.rateLimit === undefined ? undefined : toLimit(descriptor, fullKey, fail);
    if (descriptor.shareThreshold && !isWildcard(finalKey)) {
      fail(
        `share_threshold can only be used with wildcard values (containing '*'), but found key '${finalKey}'`,
      );
    }
    const node: DescriptorNode = {
      children: new Map(),
      wildcards: [],
      limit,
      valueToMetric: descriptor.valueToMetric,
      sharedPattern: descriptor.shareThreshold ? finalKey : '',
    };
    loadDescriptors(node, `${fullKey}.`, descriptor.descriptors, fail);
    parent.children.set(finalKey, node);
    if (isWildcard(finalKey)) parent.wildcards.push(compileWildcard(finalKey));
  }
}

function toLimit(
  descriptor: YamlDescriptor,
  fullKey: string,
  fail: (problem: string) => never,
): ConfiguredLimit {
  const rateLimit = descriptor.rateLimit!;
  const unit = parseUnit(rateLimit.unit);
  if (rateLimit.unlimited && unit !== undefined) fail('should not specify rate limit unit when unlimited');
  if (!rateLimit.unlimited && unit === undefined) fail(`invalid rate limit unit '${rateLimit.unit}'`);
  for (const replaced of rateLimit.replaces) {
    if (replaced === '') fail('should not have an empty replaces entry');
    if (replaced === rateLimit.name) fail('replaces should not contain name of same descriptor');
  }
  return Object.freeze({
    fullKey,
    requestsPerUnit: rateLimit.requestsPerUnit,
    unit: unit ?? 'UNKNOWN',
    unlimited: rateLimit.unlimited,
    shadowMode: descriptor.shadowMode,
    quotaMode: descriptor.quotaMode,
    name: rateLimit.name,
    replaces: Object.freeze([...rateLimit.replaces]),
    detailedMetric: descriptor.detailedMetric,
    metadata: descriptor.metadata,
  });
}

/** Go `strings.ToUpper` then a lookup in the RLS Unit enum; UNKNOWN is not a valid unit. */
function parseUnit(text: string): Unit | undefined {
  const upper = Array.from(text, (char) => {
    const upperChar = char.toUpperCase();
    return Array.from(upperChar).length === 1 ? upperChar : char;
  }).join('');
  return UNITS.find((unit) => unit === upper);
}
