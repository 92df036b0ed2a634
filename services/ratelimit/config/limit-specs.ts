// The keys beyond envoyproxy/ratelimit's (docs/ratelimit-algorithms.md): `unit_multiplier`,
// `algorithm`, `burst` and `rate_limits`, checked at load. A refusal names the descriptor's path
// (and the rate_limits entry) in the reference's `<file name>: <problem>` form; a limit these keys
// leave at their defaults stays the reference's fixed window, cache key included.
import { UNIT_SECONDS } from '../domain/window.ts';
import { ALGORITHMS, type Algorithm, type LimitSpec, type Unit } from './types.ts';
import type { YamlRateLimit } from './yaml-model.ts';

/** The longest window (unit × unit_multiplier) in seconds: about 136 years. */
export const MAX_WINDOW_SECONDS = 4_294_967_295;

/** Where a problem is: `on descriptor 'd.k'` or `in rate_limits[1] of descriptor 'd.k'`. */
export type Place = string;

export const onDescriptor = (fullKey: string): Place => `on descriptor '${fullKey}'`;
export const inEntry = (fullKey: string, index: number): Place =>
  `in rate_limits[${index}] of descriptor '${fullKey}'`;

/** Whether a limit uses a key the reference does not know (then it gets a LimitSpec). */
export function usesExtendedKeys(rateLimit: YamlRateLimit): boolean {
  return (
    rateLimit.unitMultiplier !== undefined || rateLimit.algorithm !== '' || rateLimit.burst !== undefined
  );
}

/** The extended keys a limit sets, for messages. */
function extendedKeysOf(rateLimit: YamlRateLimit): string {
  const keys: string[] = [];
  if (rateLimit.unitMultiplier !== undefined) keys.push('unit_multiplier');
  if (rateLimit.algorithm !== '') keys.push('algorithm');
  if (rateLimit.burst !== undefined) keys.push('burst');
  return keys.join(', ');
}

/** An unlimited `rate_limit` must not set the keys that describe how to count. */
export function checkUnlimited(
  rateLimit: YamlRateLimit,
  place: Place,
  fail: (problem: string) => never,
): void {
  if (usesExtendedKeys(rateLimit))
    fail(
      `unlimited cannot be used with unit_multiplier, algorithm or burst, but found ${extendedKeysOf(rateLimit)} ${place}`,
    );
}

/**
 * One limit's spec from its (already checked) unit and the extended keys. Refuses a multiplier of
 * 0, a window beyond MAX_WINDOW_SECONDS, an unknown algorithm, a burst outside token_bucket, and a
 * token bucket that cannot count exactly (its arithmetic must stay within 2^53).
 */
export function limitSpec(
  rateLimit: YamlRateLimit,
  unit: Unit,
  place: Place,
  fail: (problem: string) => never,
): LimitSpec {
  const unitMultiplier = rateLimit.unitMultiplier ?? 1;
  if (unitMultiplier < 1) fail(`unit_multiplier must be at least 1, but found ${unitMultiplier} ${place}`);
  const windowSeconds = UNIT_SECONDS[unit] * unitMultiplier;
  if (windowSeconds > MAX_WINDOW_SECONDS)
    fail(
      `a window (unit × unit_multiplier) must be at most ${MAX_WINDOW_SECONDS} seconds, but found ${windowSeconds} ${place}`,
    );
  const algorithm = parseAlgorithm(rateLimit.algorithm);
  if (algorithm === undefined)
    fail(`invalid rate limit algorithm '${rateLimit.algorithm}' (${ALGORITHMS.join(', ')}) ${place}`);
  let burst = 0;
  if (algorithm === 'token_bucket') {
    if (rateLimit.requestsPerUnit < 1)
      fail(
        `token_bucket needs requests_per_unit of at least 1, but found ${rateLimit.requestsPerUnit} ${place}`,
      );
    burst = rateLimit.burst ?? rateLimit.requestsPerUnit;
    if (burst < 1) fail(`burst must be at least 1, but found ${burst} ${place}`);
    // The bucket is kept in ticks of 1/requests_per_unit ms; burst × period is its largest figure.
    if (!Number.isSafeInteger(burst * windowSeconds * 1000 + 2 * rateLimit.requestsPerUnit))
      fail(
        `token_bucket cannot count exactly with burst ${burst} over ${windowSeconds} seconds (burst × period in ms must stay below 2^53) ${place}`,
      );
  } else if (rateLimit.burst !== undefined) {
    fail(`burst can only be used with algorithm token_bucket, but found algorithm '${algorithm}' ${place}`);
  }
  return Object.freeze({
    requestsPerUnit: rateLimit.requestsPerUnit,
    unit,
    unitMultiplier,
    algorithm: algorithm!,
    burst,
    name: rateLimit.name,
    replaces: Object.freeze([...rateLimit.replaces]),
    windowSeconds,
    keyTag: `${KEY_TAG[algorithm!]}${windowSeconds}`,
  });
}

/** A spec the reference's single fixed-window limit describes as well (then it is not kept). */
export function isReferenceLimit(spec: LimitSpec): boolean {
  return spec.algorithm === 'fixed_window' && spec.unitMultiplier === 1;
}

/** Two limits of one descriptor must not share a cache key: one algorithm and window each. */
export function checkDistinct(
  specs: readonly LimitSpec[],
  fullKey: string,
  fail: (problem: string) => never,
): void {
  specs.forEach((spec, index) => {
    if (specs.findIndex((other) => other.keyTag === spec.keyTag) < index)
      fail(
        `duplicate rate limit (${spec.algorithm} over ${spec.windowSeconds} seconds) ${inEntry(fullKey, index)}`,
      );
  });
}

const KEY_TAG: Readonly<Record<Algorithm, string>> = {
  fixed_window: 'f',
  sliding_window: 's',
  token_bucket: 't',
};

function parseAlgorithm(text: string): Algorithm | undefined {
  if (text === '') return 'fixed_window';
  return ALGORITHMS.find((algorithm) => algorithm === text);
}
