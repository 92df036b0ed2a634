// `k<sep>v,k<sep>v` lists: EXTRA_TAGS and the mogrifiers' tags (`:`), the xDS node metadata (`=`)
// and headers (`:`), OTEL_EXPORTER_OTLP_HEADERS (`=`), and the command line client's descriptors.

export interface KeyValueList {
  /** The pairs, in order. */
  readonly pairs: ReadonlyArray<readonly [key: string, value: string]>;
  /** The items that are not a pair, as written. */
  readonly bad: readonly string[];
}

/**
 * Splits `text` at its commas. By default, as the settings read them: blank items are skipped, an
 * item is split at its first separator and both sides are trimmed, and an item without a key before
 * a separator is bad. `exact`, as Go's `strings.Split` checks it (the reference's command line
 * client): every item counts, untrimmed, and is bad unless it holds exactly one separator.
 */
export function parseKeyValueList(
  text: string,
  separator: string,
  options: { exact?: boolean } = {},
): KeyValueList {
  const pairs: Array<readonly [string, string]> = [];
  const bad: string[] = [];
  for (const item of text.split(',')) {
    if (options.exact) {
      const parts = item.split(separator);
      if (parts.length === 2) pairs.push([parts[0]!, parts[1]!]);
      else bad.push(item);
      continue;
    }
    if (item.trim() === '') continue;
    const at = item.indexOf(separator);
    const key = at < 0 ? '' : item.slice(0, at).trim();
    if (key === '') bad.push(item);
    else pairs.push([key, item.slice(at + separator.length).trim()]);
  }
  return { pairs, bad };
}
