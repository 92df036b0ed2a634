/**
 * RFC 3339 times as Katib's db-manager accepts them (Go `time.Parse(time.RFC3339Nano, …)`), and
 * the two forms this service keeps:
 * - normalized: UTC, fixed width `YYYY-MM-DDTHH:MM:SS.ffffffZ` (microseconds, truncated as Katib's
 *   MySQL store does), so text order is time order in any store, for years 0000–9999;
 * - Katib's reply form: UTC, `Z`, fraction without trailing zeros, none when zero.
 */

const PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})$/;

export const RFC3339_HINT = 'YYYY-MM-DDTHH:MM:SS[.fraction] followed by Z or ±HH:MM';

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysInMonth = (y: number, m: number): number =>
  [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's civil algorithms):
// Date.UTC cannot be used, it maps years 0–99 to 1900–1999.
function daysFromCivil(y: number, m: number, d: number): number {
  const year = m <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yoe = year - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [era * 400 + yoe + (m <= 2 ? 1 : 0), m, d];
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** The normalized form of an RFC 3339 time, or a reason why it is not one. */
export function normalizeRfc3339(text: string): { ok: true; value: string } | { ok: false; reason: string } {
  const match = PATTERN.exec(text);
  if (!match) return { ok: false, reason: `is not an RFC 3339 time (${RFC3339_HINT})` };
  const [, ys, mos, ds, hs, mis, ss, fraction = '', zone] = match;
  const [y, mo, d, h, mi, s] = [ys, mos, ds, hs, mis, ss].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (mo < 1 || mo > 12) return { ok: false, reason: 'has a month out of range' };
  if (d < 1 || d > daysInMonth(y, mo)) return { ok: false, reason: 'has a day out of range' };
  if (h > 23) return { ok: false, reason: 'has an hour out of range' };
  if (mi > 59) return { ok: false, reason: 'has a minute out of range' };
  if (s > 59) return { ok: false, reason: 'has a second out of range' };
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const oh = Number(zone!.slice(1, 3));
    const om = Number(zone!.slice(4, 6));
    if (oh > 23 || om > 59) return { ok: false, reason: 'has a time zone offset out of range' };
    offsetMinutes = (zone![0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const seconds = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offsetMinutes * 60;
  const days = Math.floor(seconds / 86400);
  const secondOfDay = seconds - days * 86400;
  const [uy, um, ud] = civilFromDays(days);
  if (uy < 0 || uy > 9999) return { ok: false, reason: 'is outside the years 0000–9999 in UTC' };
  const time = `${pad(Math.floor(secondOfDay / 3600), 2)}:${pad(Math.floor(secondOfDay / 60) % 60, 2)}:${pad(secondOfDay % 60, 2)}`;
  const micros = fraction.slice(0, 6).padEnd(6, '0');
  return { ok: true, value: `${pad(uy, 4)}-${pad(um, 2)}-${pad(ud, 2)}T${time}.${micros}Z` };
}

/** Katib's reply form of a normalized time: `2016-12-31T20:02:05.1234Z`, `2019-02-02T19:05:06Z`. */
export function toKatibTime(normalized: string): string {
  // Called once per log of every read (10,000 at a time): no split, no regular expression.
  const zone = normalized.length - 1;
  const dot = normalized.lastIndexOf('.', zone);
  if (dot < 0) return normalized;
  let end = zone;
  while (end > dot + 1 && normalized.charCodeAt(end - 1) === 48 /* 0 */) end--;
  if (end === dot + 1) end = dot;
  return end === zone ? normalized : `${normalized.slice(0, end)}Z`;
}
