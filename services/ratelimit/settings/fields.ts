// The kinds of setting envoyproxy/ratelimit reads that shared/settings.ts has no reader for: Go
// durations, choices in any case, and key/value lists.
import type { Field } from '../../../shared/settings.ts';
import { parseKeyValueList } from './key-value-list.ts';

const UNITS_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration (`300ms`, `1h30m`, `150us`, `0`), in milliseconds; undefined when invalid. */
export function parseGoDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < trimmed.length) {
    part.lastIndex = at;
    const match = part.exec(trimmed);
    if (match === null) return undefined;
    total += Number(match[1]) * UNITS_MS[match[2]!]!;
    at = part.lastIndex;
  }
  return at > 0 ? total : undefined;
}

/** A Go duration setting, as milliseconds. */
export function duration(variable: string, fallback: string): Field<number> {
  const allowed = 'a duration such as 300ms, 10s, 1h30m (units ns, us, ms, s, m, h) or 0';
  const fallbackMs = parseGoDuration(fallback)!;
  return {
    variable,
    allowed,
    defaultText: fallback,
    read(env) {
      const raw = env[variable];
      if (raw === undefined || raw === '') return { ok: true, value: fallbackMs };
      const value = parseGoDuration(raw);
      return value === undefined
        ? { ok: false, problem: `${variable}=${JSON.stringify(raw)} is not allowed: ${allowed}` }
        : { ok: true, value };
    },
  };
}

/** A choice compared without case, as envoyproxy/ratelimit does for REDIS_TYPE and LOG_LEVEL. */
export function choice<const T extends string>(
  variable: string,
  choices: readonly T[],
  fallback: T,
): Field<T> {
  return {
    variable,
    allowed: `one of ${choices.join(', ')} (any case)`,
    defaultText: fallback,
    read(env) {
      const raw = env[variable];
      if (raw === undefined || raw === '') return { ok: true, value: fallback };
      const found = choices.find((c) => c.toLowerCase() === raw.trim().toLowerCase());
      return found === undefined
        ? {
            ok: false,
            problem: `${variable}=${JSON.stringify(raw)} is not allowed: one of ${choices.join(', ')}`,
          }
        : { ok: true, value: found };
    },
  };
}

/** `k<sep>v,k<sep>v` pairs (EXTRA_TAGS and the xDS headers with `:`, the xDS node metadata with `=`). */
export function keyValuePairs(
  variable: string,
  separator: '=' | ':',
): Field<Readonly<Record<string, string>>> {
  const allowed = `comma-separated key${separator}value pairs`;
  return {
    variable,
    allowed,
    defaultText: '',
    read(env) {
      const raw = env[variable] ?? '';
      const { pairs, bad } = parseKeyValueList(raw, separator);
      if (bad.length > 0)
        return {
          ok: false,
          problem: `${variable}=${JSON.stringify(raw)} is not allowed: ${allowed} (${JSON.stringify(bad[0])} has no key${separator}value)`,
        };
      return { ok: true, value: Object.freeze(Object.fromEntries(pairs)) };
    },
  };
}
