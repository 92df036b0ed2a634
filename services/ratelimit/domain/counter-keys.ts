// GET /counters: which configured limit a cache key found in the store counts for. A key is
// `<prefix><domain>_<k1>_<v1>_..._<tail>`, the tail a fixed window's start (the reference's
// limit), `f<seconds>_<start>`, `s<seconds>` or `t<seconds>`; keys and values may hold `_`, so the
// entries are matched against the domain's descriptor tree, trying each `_` where a value may end.
import type { DescriptorNode, LimitSpec, Unit } from '../config/index.ts';
import { compileWildcard, isWildcard, matchesWildcard } from '../config/wildcard.ts';
import { UNIT_SECONDS, windowStart, windowStartOf } from './window.ts';

export interface CounterOwner {
  /** The limit's configuration path (`d.user`). */
  readonly fullKey: string;
  readonly spec: LimitSpec;
}

/** The reference's single fixed-window limit, as a spec. */
export function referenceSpec(limit: { requestsPerUnit: number; unit: Unit; name: string }): LimitSpec {
  return {
    requestsPerUnit: limit.requestsPerUnit,
    unit: limit.unit,
    unitMultiplier: 1,
    algorithm: 'fixed_window',
    burst: 0,
    name: limit.name,
    replaces: [],
    windowSeconds: UNIT_SECONDS[limit.unit],
    keyTag: '',
  };
}

type Tail =
  | { readonly kind: 'reference'; readonly start: number }
  | { readonly kind: 'tagged'; readonly tag: string; readonly start: number | undefined };

/** The tails a key may end with, most specific first (`_f60_120` also ends like a reference key). */
function tailsOf(rest: string): Array<{ tail: Tail; entries: string }> {
  const found: Array<{ tail: Tail; entries: string }> = [];
  const fixed = /_(f\d+)_(\d+)$/.exec(rest);
  if (fixed !== null)
    found.push({
      tail: { kind: 'tagged', tag: fixed[1]!, start: Number(fixed[2]) },
      entries: rest.slice(0, fixed.index + 1),
    });
  const state = /_([st]\d+)$/.exec(rest);
  if (state !== null)
    found.push({
      tail: { kind: 'tagged', tag: state[1]!, start: undefined },
      entries: rest.slice(0, state.index + 1),
    });
  const reference = /_(\d+)$/.exec(rest);
  if (reference !== null)
    found.push({
      tail: { kind: 'reference', start: Number(reference[1]) },
      entries: rest.slice(0, reference.index + 1),
    });
  return found;
}

/** The positions of `_` in `text` from `from` on: where a value may end. */
function underscores(text: string, from: number): number[] {
  const at: number[] = [];
  for (let i = from; i < text.length; i++) if (text[i] === '_') at.push(i);
  return at;
}

/**
 * Every node whose path spells `text` (`k1_v1_k2_v2_`), each level tried as matching does: an
 * exact `key_value` first, then wildcards in configuration order, then the bare key.
 */
function* nodesSpelling(node: DescriptorNode, text: string): Generator<DescriptorNode> {
  const children = [...node.children];
  const passes: Array<Array<[DescriptorNode, number[]]>> = [
    children
      .filter(([finalKey, child]) => child.value !== '' && !isWildcard(finalKey))
      .map(([finalKey, child]) => [child, text.startsWith(`${finalKey}_`) ? [finalKey.length] : []]),
    children
      .filter(([finalKey]) => isWildcard(finalKey))
      .map(([finalKey, child]) => {
        const pattern = compileWildcard(finalKey);
        return [child, underscores(text, 0).filter((end) => matchesWildcard(pattern, text.slice(0, end)))];
      }),
    children
      .filter(([finalKey, child]) => child.value === '' && !isWildcard(finalKey))
      .map(([, child]) => [
        child,
        text.startsWith(`${child.key}_`) ? underscores(text, child.key.length + 1) : [],
      ]),
  ];
  for (const pass of passes)
    for (const [child, cuts] of pass)
      for (const end of cuts) {
        const rest = text.slice(end + 1);
        if (rest === '') yield child;
        else yield* nodesSpelling(child, rest);
      }
}

/**
 * The configured limit `key` counts for, when it is one in use at `nowSeconds` (a fixed window's
 * key of an earlier window is not); undefined for keys of other limits, windows or domains.
 * `keyPrefix` is `<CACHE_KEY_PREFIX><domain>_`.
 */
export function ownerOfKey(
  root: DescriptorNode,
  keyPrefix: string,
  key: string,
  nowSeconds: number,
): CounterOwner | undefined {
  if (!key.startsWith(keyPrefix)) return undefined;
  for (const { tail, entries } of tailsOf(key.slice(keyPrefix.length))) {
    for (const node of nodesSpelling(root, entries)) {
      const limit = node.limit;
      if (limit === undefined || limit.unlimited) continue;
      if (tail.kind === 'reference') {
        if (limit.limits !== undefined || limit.unit === 'UNKNOWN') continue;
        if (tail.start !== windowStart(limit.unit, nowSeconds)) continue;
        return { fullKey: limit.fullKey, spec: referenceSpec({ ...limit, unit: limit.unit }) };
      }
      const spec = limit.limits?.find((s) => s.keyTag === tail.tag);
      if (spec === undefined) continue;
      if (tail.start !== undefined && tail.start !== windowStartOf(spec.windowSeconds, nowSeconds)) continue;
      return { fullKey: limit.fullKey, spec };
    }
  }
  return undefined;
}
