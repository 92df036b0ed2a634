/**
 * A configured `key_value` containing `*`, matched against the request's concatenated `key_value`
 * (so `key: foo, value: "*"` also matches request key `foo_bar`). Each `*` matches zero or more
 * characters; the fixed parts must appear in order without overlapping.
 */
export interface WildcardPattern {
  readonly finalKey: string;
  readonly parts: readonly string[];
}

export function isWildcard(finalKey: string): boolean {
  return finalKey.includes('*');
}

export function compileWildcard(finalKey: string): WildcardPattern {
  return { finalKey, parts: finalKey.split('*') };
}

export function matchesWildcard(pattern: WildcardPattern, candidate: string): boolean {
  const { parts } = pattern;
  const prefix = parts[0] ?? '';
  const suffix = parts.at(-1) ?? '';
  const fixedLength = parts.reduce((total, part) => total + part.length, 0);
  if (fixedLength > candidate.length || !candidate.startsWith(prefix) || !candidate.endsWith(suffix))
    return false;
  let position = prefix.length;
  const end = candidate.length - suffix.length;
  for (const part of parts.slice(1, -1)) {
    const found = candidate.indexOf(part, position);
    if (found < 0 || found + part.length > end) return false;
    position = found + part.length;
  }
  return true;
}
