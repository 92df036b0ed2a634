// Katib's metricsFormat filters: regular expressions whose first two groups are a metric's name and
// value. They are written for Go's RE2; the few spellings JavaScript reads differently are turned
// into its own (named groups `(?P<n>…)`, leading flags such as `(?i)`).

/** Katib's DefaultFilter (pkg/metricscollector/v1beta1/common/const.go): `name=value` pairs. */
export const DEFAULT_METRIC_FILTER = String.raw`([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?)`;

/** Katib refuses a filter without two top subexpressions with this very test. */
const TWO_GROUPS = /.*\(.*\).*\(.*\).*/;

/** The filter as a global JavaScript RegExp, or why it cannot be one. */
export function compileMetricFilter(
  source: string,
): { ok: true; regexp: RegExp } | { ok: false; reason: string } {
  if (!TWO_GROUPS.test(source))
    return { ok: false, reason: 'two top subexpressions are required (the name, then the value)' };
  let body = source.replaceAll('(?P<', '(?<');
  let flags = 'g';
  const leading = /^\(\?([imsU]+)\)/.exec(body);
  if (leading) {
    for (const flag of leading[1]!) {
      if (flag === 'U') return { ok: false, reason: 'the (?U) flag (ungreedy) has no JavaScript equivalent' };
      if (!flags.includes(flag)) flags += flag;
    }
    body = body.slice(leading[0].length);
  }
  try {
    return { ok: true, regexp: new RegExp(body, flags) };
  } catch (error) {
    return { ok: false, reason: `not a valid regular expression: ${(error as Error).message}` };
  }
}
