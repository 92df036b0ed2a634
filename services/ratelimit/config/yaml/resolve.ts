import type { ScalarTag, ScalarValue } from './nodes.ts';

/**
 * Plain-scalar resolution of gopkg.in/yaml.v2 (YAML 1.1): yes/no/on/off/y/n are booleans, ints
 * follow Go's base-0 syntax with underscores dropped, floats need the YAML float shape, and a
 * number too big for a float64 stays a string.
 */
export interface Resolved {
  readonly tag: ScalarTag;
  readonly value: ScalarValue;
}

const WORDS = new Map<string, Resolved>();
function words(tag: ScalarTag, value: ScalarValue, list: readonly string[]): void {
  for (const word of list) WORDS.set(word, { tag, value });
}
words('bool', true, ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
words('bool', false, ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
words('null', null, ['', '~', 'null', 'Null', 'NULL']);
words('float', Number.NaN, ['.nan', '.NaN', '.NAN']);
words('float', Number.POSITIVE_INFINITY, ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']);
words('float', Number.NEGATIVE_INFINITY, ['-.inf', '-.Inf', '-.INF']);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
const TIMESTAMP =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|[ \t]+)(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d*)?[ \t]*(?:Z|[-+]\d{1,2}(?::?\d{2})?)?)?$/;

export function resolvePlain(text: string): Resolved {
  const word = WORDS.get(text);
  if (word !== undefined) return word;
  const first = text[0] ?? '';
  if (first === '.') {
    return DOT_FLOAT.test(text) ? { tag: 'float', value: Number.parseFloat(text) } : str(text);
  }
  if (!/[-+0-9]/.test(first)) return str(text);
  if (isTimestamp(text)) return { tag: 'timestamp', value: text };
  const plain = text.replaceAll('_', '');
  const integer = parseGoInteger(plain);
  if (integer !== undefined) {
    if (integer >= INT64_MIN && integer <= INT64_MAX) return { tag: 'int', value: integer };
    if (integer > INT64_MAX && integer <= UINT64_MAX && !plain.startsWith('+'))
      return { tag: 'uint', value: integer };
  }
  if (YAML_STYLE_FLOAT.test(plain)) {
    const float = Number.parseFloat(plain);
    // strconv.ParseFloat reports a range error for values beyond float64: yaml.v2 then keeps the text.
    if (Number.isFinite(float)) return { tag: 'float', value: float };
  }
  return str(text);
}

function str(text: string): Resolved {
  return { tag: 'str', value: text };
}

function isTimestamp(text: string): boolean {
  const match = TIMESTAMP.exec(text);
  if (match === null) return false;
  const [month, day, hour, minute, second] = [match[2], match[3], match[4], match[5], match[6]].map(Number);
  if (month! < 1 || month! > 12 || day! < 1 || day! > 31) return false;
  return match[4] === undefined || (hour! < 24 && minute! < 60 && second! < 60);
}

/** strconv.ParseInt/ParseUint with base 0: sign, 0x/0o/0b prefixes, a leading 0 means octal. */
export function parseGoInteger(text: string): bigint | undefined {
  const match = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(text);
  if (match === null) return undefined;
  const [, sign, digits] = match as unknown as [string, string, string];
  let magnitude: bigint;
  if (/^0[oO]/.test(digits)) magnitude = BigInt(`0o${digits.slice(2)}`);
  else if (/^0[xXbB]/.test(digits)) magnitude = BigInt(digits.toLowerCase());
  else if (digits.length > 1 && digits.startsWith('0')) magnitude = BigInt(`0o${digits.slice(1)}`);
  else magnitude = BigInt(digits);
  return sign === '-' ? -magnitude : magnitude;
}
