import { ConfigError } from './config-error.ts';
import {
  checkDistinct,
  checkUnlimited,
  inEntry,
  isReferenceLimit,
  limitSpec,
  onDescriptor,
  usesExtendedKeys,
} from './limit-specs.ts';
import type { ConfiguredLimit, DescriptorNode, LimitSpec, Unit } from './types.ts';
import { UNITS } from './types.ts';
import { compileWildcard, isWildcard } from './wildcard.ts';
import type { YamlDescriptor, YamlRateLimit, YamlRoot } from './yaml-model.ts';

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
  return {
    key: '',
    value: '',
    children: new Map(),
    wildcards: [],
    limit: undefined,
    valueToMetric: false,
    sharedPattern: '',
  };
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

    for (const key of descriptor.misplaced)
      fail(`${key} can only be used inside rate_limit or rate_limits, but found it ${onDescriptor(fullKey)}`);
    const limit = toLimit(descriptor, fullKey, fail);
    if (descriptor.shareThreshold && !isWildcard(finalKey)) {
      fail(
        `share_threshold can only be used with wildcard values (containing '*'), but found key '${finalKey}'`,
      );
    }
    const node: DescriptorNode = {
      key: descriptor.key,
      value: descriptor.value,
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
): ConfiguredLimit | undefined {
  const { rateLimit, rateLimits } = descriptor;
  if (rateLimits !== undefined) {
    if (rateLimit !== undefined)
      fail(`rate_limit and rate_limits cannot both be used, but found both ${onDescriptor(fullKey)}`);
    return fromList(descriptor, rateLimits, fullKey, fail);
  }
  if (rateLimit === undefined) return undefined;
  const unit = parseUnit(rateLimit.unit);
  if (rateLimit.unlimited && unit !== undefined) fail('should not specify rate limit unit when unlimited');
  if (!rateLimit.unlimited && unit === undefined) fail(`invalid rate limit unit '${rateLimit.unit}'`);
  for (const replaced of rateLimit.replaces) {
    if (replaced === '') fail('should not have an empty replaces entry');
    if (replaced === rateLimit.name) fail('replaces should not contain name of same descriptor');
  }
  let limits: readonly LimitSpec[] | undefined;
  if (rateLimit.unlimited) checkUnlimited(rateLimit, onDescriptor(fullKey), fail);
  else if (usesExtendedKeys(rateLimit)) {
    const spec = limitSpec(rateLimit, unit!, onDescriptor(fullKey), fail);
    if (!isReferenceLimit(spec)) limits = Object.freeze([spec]);
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
    ...(limits === undefined ? {} : { limits }),
  });
}

/** `rate_limits`: every entry a limited one (no `unlimited`), each with its own window and algorithm. */
function fromList(
  descriptor: YamlDescriptor,
  entries: readonly YamlRateLimit[],
  fullKey: string,
  fail: (problem: string) => never,
): ConfiguredLimit {
  if (entries.length === 0)
    fail(`rate_limits needs at least one limit, but found none ${onDescriptor(fullKey)}`);
  const names = new Set(entries.map((entry) => entry.name).filter((name) => name !== ''));
  const specs = entries.map((entry, index) => {
    const place = inEntry(fullKey, index);
    if (entry.unlimited) fail(`unlimited cannot be used in rate_limits, but found it ${place}`);
    const unit = parseUnit(entry.unit);
    if (unit === undefined) fail(`invalid rate limit unit '${entry.unit}' ${place}`);
    for (const replaced of entry.replaces) {
      if (replaced === '') fail(`should not have an empty replaces entry ${place}`);
      if (names.has(replaced)) fail(`replaces should not contain name of same descriptor ${place}`);
    }
    return limitSpec(entry, unit!, place, fail);
  });
  checkDistinct(specs, fullKey, fail);
  const first = specs[0]!;
  return Object.freeze({
    fullKey,
    requestsPerUnit: first.requestsPerUnit,
    unit: first.unit,
    unlimited: false,
    shadowMode: descriptor.shadowMode,
    quotaMode: descriptor.quotaMode,
    name: first.name,
    replaces: Object.freeze([...new Set(specs.flatMap((spec) => spec.replaces))]),
    detailedMetric: descriptor.detailedMetric,
    metadata: descriptor.metadata,
    limits: Object.freeze(specs),
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
