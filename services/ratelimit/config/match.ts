import type { ConfiguredLimit, DescriptorNode, RequestEntry } from './types.ts';
import { matchesWildcard } from './wildcard.ts';

/** How one request entry found its configuration node. */
export interface MatchedLevel {
  readonly entry: RequestEntry;
  readonly node: DescriptorNode;
  readonly how: 'exact' | 'wildcard' | 'key';
  /** The wildcard `key_value` that matched ('' unless `how` is wildcard). */
  readonly wildcardKey: string;
  /** The share_threshold value pattern this entry counts under ('' when none). */
  readonly sharedValue: string;
}

export interface Match {
  readonly limit: ConfiguredLimit;
  readonly levels: readonly MatchedLevel[];
}

/**
 * The reference's `GetLimit` walk: per entry, exact `key_value`, else the first wildcard in
 * config order, else the bare key. A limit counts only on the request's last entry (depth rule);
 * a node without children ends the walk. A node with neither limit nor children whitelists.
 */
export function findLimit(domain: DescriptorNode, entries: readonly RequestEntry[]): Match | undefined {
  let level = domain;
  const levels: MatchedLevel[] = [];
  let limit: ConfiguredLimit | undefined;
  for (const [index, entry] of entries.entries()) {
    const matched = matchEntry(level, entry);
    if (matched === undefined) return undefined;
    levels.push(matched);
    if (matched.node.limit !== undefined && index === entries.length - 1) limit = matched.node.limit;
    if (matched.node.children.size === 0) break;
    level = matched.node;
  }
  return limit === undefined ? undefined : { limit, levels };
}

function matchEntry(level: DescriptorNode, entry: RequestEntry): MatchedLevel | undefined {
  const finalKey = `${entry.key}_${entry.value}`;
  const exact = level.children.get(finalKey);
  if (exact !== undefined) return { entry, node: exact, how: 'exact', wildcardKey: '', sharedValue: '' };
  const wildcard = level.wildcards.find((pattern) => matchesWildcard(pattern, finalKey));
  const wildcardNode = wildcard === undefined ? undefined : level.children.get(wildcard.finalKey);
  if (wildcard !== undefined && wildcardNode !== undefined) {
    const sharedValue =
      wildcardNode.sharedPattern === '' ? '' : trimPrefix(wildcardNode.sharedPattern, `${entry.key}_`);
    return { entry, node: wildcardNode, how: 'wildcard', wildcardKey: wildcard.finalKey, sharedValue };
  }
  const bare = level.children.get(entry.key);
  return bare === undefined ? undefined : { entry, node: bare, how: 'key', wildcardKey: '', sharedValue: '' };
}

/** Go `strings.TrimPrefix`. */
export function trimPrefix(text: string, prefix: string): string {
  return text.startsWith(prefix) ? text.slice(prefix.length) : text;
}
