import type { Match, MatchedLevel } from './match.ts';
import { trimPrefix } from './match.ts';

/**
 * The key a matched limit's stats are counted under (reference §3.4):
 * - detailed_metric: every level with the request's value (`k_` when empty), except share_threshold
 *   levels, which show their pattern (then an empty value shows as the bare key);
 * - otherwise value_to_metric per level: share_threshold pattern > request value when the node has
 *   value_to_metric > the wildcard pattern; exact matches show their value, bare keys their key.
 * Without detailed_metric and value_to_metric this is the limit's config path.
 */
export function statsKeyOf(domain: string, match: Match): string {
  const { limit, levels } = match;
  if (limit.detailedMetric) {
    const shared = levels.some((level) => level.sharedValue !== '');
    return [
      domain,
      ...levels.map((level) => (shared ? sharedOrValue(level) : `${level.entry.key}_${level.entry.value}`)),
    ].join('.');
  }
  return [domain, ...levels.map(valueToMetricPart)].join('.');
}

function sharedOrValue(level: MatchedLevel): string {
  return level.sharedValue !== '' ? `${level.entry.key}_${level.sharedValue}` : withValue(level);
}

function valueToMetricPart(level: MatchedLevel): string {
  const { entry, node, how } = level;
  if (how === 'wildcard') {
    if (level.sharedValue !== '') return `${entry.key}_${level.sharedValue}`;
    if (node.valueToMetric) return withValue(level);
    return `${entry.key}_${trimPrefix(level.wildcardKey, `${entry.key}_`)}`;
  }
  if (how === 'exact' || node.valueToMetric) return withValue(level);
  return entry.key;
}

function withValue({ entry }: MatchedLevel): string {
  return entry.value === '' ? entry.key : `${entry.key}_${entry.value}`;
}
