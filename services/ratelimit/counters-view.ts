// GET /counters?domain=D[&key=k1=v1,k2=v2][&cursor=C][&limit=N] on the debug port: for the
// configured limits of a domain, each key in use with its count, what remains and when it resets,
// read from the store. With `key`, the keys that request descriptor uses now (any store); without,
// a page of the domain's keys found by SCAN (Redis), followed with `cursor` until it is absent.
import type { Clock } from '../../shared/clock.ts';
import { AppError } from '../../shared/errors.ts';
import type { LimitSpec, RateLimitConfig } from './config/index.ts';
import { cacheKey } from './domain/cache-key.ts';
import { ownerOfKey, referenceSpec } from './domain/counter-keys.ts';
import type { LimitOutcome } from './domain/limit-outcome.ts';
import { atomicOutcome, fixedWindowOutcome, limitParts } from './domain/limit-set.ts';
import type { CounterReader } from './ports.ts';

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1_000;

export interface CounterView {
  /** The key in the store. */
  readonly key: string;
  /** The limit's configuration path. */
  readonly descriptor: string;
  readonly limit: {
    readonly name: string;
    readonly unit: string;
    readonly unit_multiplier: number;
    readonly requests_per_unit: number;
    readonly algorithm: string;
    readonly burst?: number;
  };
  /** Hits counted now (token bucket: tokens in use). */
  readonly count: number;
  readonly remaining: number;
  /** Seconds until the limit is whole again (a fixed window: until it ends). */
  readonly reset_seconds: number;
}

export interface CountersPage {
  readonly domain: string;
  readonly counters: CounterView[];
  /** Present when there is more: the next page's `cursor`. */
  readonly cursor?: string;
}

interface Found {
  readonly key: string;
  readonly perSecond: boolean;
  readonly fullKey: string;
  readonly spec: LimitSpec;
}

/** `k1=v1,k2=v2` as request entries (the command line client's -descriptors form). */
function parseEntries(text: string): Array<{ key: string; value: string }> {
  return text.split(',').map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new AppError('INVALID_ARGUMENT', `key must be <key>=<value>[,<key>=<value>...], not '${text}'`);
    return { key: pair.slice(0, at), value: pair.slice(at + 1) };
  });
}

/** A Redis glob matching `text` literally. */
const globLiteral = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');

export function createCountersView(deps: {
  config: () => RateLimitConfig | undefined;
  reader: CounterReader;
  cacheKeyPrefix: string;
  clock: Clock;
}): (query: URLSearchParams) => Promise<CountersPage> {
  const { reader, cacheKeyPrefix } = deps;

  const view = (found: Found, state: readonly number[], nowMs: number): CounterView => {
    const { spec } = found;
    let outcome: LimitOutcome;
    if (spec.algorithm === 'fixed_window') outcome = fixedWindowOutcome(spec, state[0] ?? 0, 0, nowMs);
    else outcome = atomicOutcome(spec, state, nowMs, 0, true, 0);
    return {
      key: found.key,
      descriptor: found.fullKey,
      limit: {
        name: spec.name,
        unit: spec.unit,
        unit_multiplier: spec.unitMultiplier,
        requests_per_unit: spec.requestsPerUnit,
        algorithm: spec.algorithm,
        ...(spec.algorithm === 'token_bucket' ? { burst: spec.burst } : {}),
      },
      count: outcome.before,
      remaining: Math.max(0, outcome.capacity - outcome.before),
      reset_seconds: Math.ceil(outcome.resetMs / 1000),
    };
  };

  /** The keys one request descriptor uses at `nowMs`. */
  const descriptorKeys = (config: RateLimitConfig, domain: string, text: string, nowMs: number): Found[] => {
    const lookup = config.getLimit(domain, { entries: parseEntries(text) });
    if (lookup.kind !== 'limit' || lookup.rule.unlimited) return [];
    const { rule } = lookup;
    const nowSeconds = Math.floor(nowMs / 1000);
    if (rule.limits !== undefined)
      return limitParts(cacheKeyPrefix, domain, rule, rule.limits, nowSeconds).map((part) => ({
        ...part,
        fullKey: rule.fullKey,
      }));
    const key = cacheKey(cacheKeyPrefix, domain, rule, nowSeconds);
    return [{ key: key.key, perSecond: key.perSecond, fullKey: rule.fullKey, spec: referenceSpec(rule) }];
  };

  return async (query) => {
    const domain = query.get('domain') ?? '';
    if (domain === '')
      throw new AppError('INVALID_ARGUMENT', 'domain is required: /counters?domain=<domain>');
    const limitText = query.get('limit') ?? String(DEFAULT_PAGE);
    const limit = Number(limitText);
    if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_PAGE)
      throw new AppError(
        'INVALID_ARGUMENT',
        `limit must be an integer from 1 to ${MAX_PAGE}, not '${limitText}'`,
      );
    const config = deps.config();
    const root = config?.data.domains.get(domain);
    if (config === undefined || root === undefined)
      throw new AppError('NOT_FOUND', `domain '${domain}' is not in the configuration in force`);
    const nowMs = deps.clock.now();
    const key = query.get('key');
    let found: Found[];
    let cursor = '';
    if (key !== null) {
      found = descriptorKeys(config, domain, key, nowMs);
    } else {
      if (reader.scan === undefined)
        throw new AppError(
          'UNIMPLEMENTED',
          'this store cannot list its keys (memcached): ask for one descriptor with key=<key>=<value>[,...]',
        );
      const keyPrefix = `${cacheKeyPrefix}${domain}_`;
      const page = await reader.scan(`${globLiteral(keyPrefix)}*`, query.get('cursor') ?? '', limit);
      cursor = page.cursor;
      found = [];
      for (const stored of page.keys) {
        const owner = ownerOfKey(root, keyPrefix, stored.key, Math.floor(nowMs / 1000));
        if (owner !== undefined) found.push({ ...stored, ...owner });
      }
    }
    const states = await reader.read(found.map((f) => ({ ...f, algorithm: f.spec.algorithm })));
    const counters = found.map((f, i) => view(f, states[i]!, nowMs));
    return cursor === '' ? { domain, counters } : { domain, counters, cursor };
  };
}
