// shared/rfc3339.ts against Temporal (temporal-polyfill, a full implementation of the proposal): for the
// forms Katib accepts (Go's time.Parse(time.RFC3339Nano, …): `T` and `Z` upper case, a fraction
// after `.` or `,`, an offset ±HH:MM, no leap second), Temporal.Instant.from says whether the
// date and time exist and which instant it is; the normalized form must be that instant in UTC,
// truncated to microseconds, or an error where Temporal errs or the year leaves 0000–9999.
import { Temporal } from 'temporal-polyfill';
import { normalizeRfc3339 } from '../../../shared/rfc3339.ts';
import { check, type FuzzTarget, pick, type Rng } from '../fuzz-core.ts';

const two = (n: number): string => String(n).padStart(2, '0');

/** A time stamp near the Katib form: fields at and past their bounds, now and then one character off. */
export function randomTimestamp(rng: Rng): string {
  const year = pick(rng, [0, 1, 99, 100, 1582, 1900, 1969, 1970, 2000, 2024, 2100, 9999, rng.int(10_000)]);
  const edge = rng.int(3) === 0;
  const month = edge ? pick(rng, [0, 1, 2, 12, 13]) : 1 + rng.int(12);
  const day = edge ? pick(rng, [0, 1, 28, 29, 30, 31, 32]) : 1 + rng.int(28);
  const hour = edge ? pick(rng, [0, 23, 24]) : rng.int(24);
  const minute = edge ? pick(rng, [0, 59, 60]) : rng.int(60);
  const second = edge ? pick(rng, [0, 59, 60, 61]) : rng.int(60);
  const digits = pick(rng, [0, 0, 1, 3, 6, 7, 9, 10, 12]);
  let fraction = '';
  for (let i = 0; i < digits; i++) fraction += String(rng.int(10));
  const separator = digits === 0 ? '' : pick(rng, ['.', '.', ',']);
  const offset = pick(rng, [
    'Z',
    'Z',
    `${pick(rng, ['+', '-'])}${two(edge ? pick(rng, [0, 14, 23, 24]) : rng.int(24))}:${two(edge ? pick(rng, [0, 59, 60]) : rng.int(60))}`,
  ]);
  let out = `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(second)}${separator}${fraction}${offset}`;
  if (rng.int(8) === 0) {
    const at = rng.int(out.length);
    const change = pick(rng, ['t', 'z', ' ', '', '0', '-', ':', '+', 'x', '\u0660', `${out[at]}${out[at]}`]);
    out = out.slice(0, at) + change + out.slice(at + 1);
  }
  return out;
}

const KATIB_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})$/;

/** What the reference says: the normalized time, or undefined for an error. */
export function referenceNormalized(text: string): string | undefined {
  const form = KATIB_FORM.exec(text);
  if (form === null || form[1] === '60') return undefined; // Go refuses a leap second
  // Temporal reads 9 fraction digits; Go reads more and drops what is past nanoseconds.
  const digits = form[2];
  const cut = digits === undefined ? text : text.replace(/[.,]\d+/, `.${digits.slice(0, 9)}`);
  let instant: Temporal.Instant;
  try {
    instant = Temporal.Instant.from(cut);
  } catch {
    return undefined;
  }
  // Years 0000-9999 print in four digits, the others as ±YYYYYY.
  const utc = instant.toString({ smallestUnit: 'microsecond', roundingMode: 'trunc' });
  return /^\d{4}-/.test(utc) ? utc : undefined;
}

export const rfc3339Target: FuzzTarget = {
  name: 'rfc3339',
  oracle: 'Temporal.Instant.from (temporal-polyfill) on the Katib forms',
  run(rng, count, found) {
    for (let i = 0; i < count; i++) {
      const input = randomTimestamp(rng);
      check(
        found,
        () => JSON.stringify(input),
        () => {
          const ours = normalizeRfc3339(input);
          const expected = referenceNormalized(input);
          const got = ours.ok ? ours.value : undefined;
          return got === expected
            ? undefined
            : `ours ${got ?? `error (${!ours.ok && ours.reason})`}, Temporal ${expected ?? 'error'}`;
        },
      );
    }
  },
};
