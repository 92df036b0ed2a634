// The ObservationLogReported event of a report read by report-request.ts, written straight from the
// request's bytes into the event's Avro single-object encoding: no object per log, no regular
// expression per time stamp (the common `…T…Z` form is checked and copied byte by byte). It takes
// only reports that toReportedEvent accepts and gives the bytes the catalog's encoder would
// (test/unit/experiment/dbmanager/report-event.test.ts); for anything else (a bad entry, text that is
// not UTF-8) it answers undefined and the caller takes the generic path, which says what is wrong.
import { isUtf8 } from 'node:buffer';
import { normalizeRfc3339 } from '../../../../shared/rfc3339.ts';
import { HAS_METRIC, LOG_SLOTS, NAME, type ParsedReport, TIME, VALUE } from './report-request.ts';

/**
 * The version of schemas/observation-log-reported.v*.avsc this file writes: its fields in order
 * (event_id, occurred_at, trial_name, metric_logs of time_stamp, metric_name, value). The producer
 * refuses this writer at start when another version is current (EventProducer.schemaHeader).
 */
export const REPORTED_EVENT_VERSION = 1;

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`: the normalized time's length. */
const NORMALIZED = 27;

/** Bytes of Avro's zig-zag varint of a non-negative long. */
const longSize = (value: number): number => {
  let size = 1;
  for (let rest = value * 2; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
};

function writeLong(out: Buffer, at: number, value: number): number {
  let rest = value * 2;
  while (rest >= 0x80) {
    out[at++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  out[at++] = rest;
  return at;
}

/** Whether bytes [start, end) are text the generic path reads back byte for byte. */
function plainText(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i]! >= 0x80) return isUtf8(bytes.subarray(start, end));
  return true;
}

const digit = (bytes: Buffer, at: number): number => {
  const d = bytes[at]! - 48;
  return d >= 0 && d <= 9 ? d : Number.NaN;
};
const two = (bytes: Buffer, at: number): number => digit(bytes, at) * 10 + digit(bytes, at + 1);
const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Writes the normalized time of bytes [start, end) at `at`: `YYYY-MM-DDTHH:MM:SS[.,]fraction Z` is
 * checked and copied; other forms (offsets) go through normalizeRfc3339. False when it is not a time.
 */
function writeTime(bytes: Buffer, start: number, end: number, out: Buffer, at: number): boolean {
  const length = end - start;
  const shaped =
    length >= 20 &&
    bytes[start + 4] === 0x2d && // -
    bytes[start + 7] === 0x2d &&
    bytes[start + 10] === 0x54 && // T
    bytes[start + 13] === 0x3a && // :
    bytes[start + 16] === 0x3a &&
    bytes[end - 1] === 0x5a && // Z
    (length === 20 || ((bytes[start + 19] === 0x2e || bytes[start + 19] === 0x2c) && length > 21));
  if (!shaped) return writeOtherTime(bytes, start, end, out, at);
  const year = two(bytes, start) * 100 + two(bytes, start + 2);
  const month = two(bytes, start + 5);
  const day = two(bytes, start + 8);
  // NaN (a non-digit) fails every comparison below; the year is only copied, so it is checked here.
  if (Number.isNaN(year)) return false;
  if (!(month >= 1 && month <= 12)) return false;
  if (!(day >= 1 && day <= (month === 2 && isLeap(year) ? 29 : DAYS[month - 1]!))) return false;
  if (!(two(bytes, start + 11) <= 23 && two(bytes, start + 14) <= 59 && two(bytes, start + 17) <= 59))
    return false;
  for (let i = start + 20; i < end - 1; i++) if (Number.isNaN(digit(bytes, i))) return false;
  bytes.copy(out, at, start, start + 19);
  out[at + 19] = 0x2e;
  for (let i = 0; i < 6; i++) out[at + 20 + i] = start + 20 + i < end - 1 ? bytes[start + 20 + i]! : 0x30;
  out[at + 26] = 0x5a;
  return true;
}

function writeOtherTime(bytes: Buffer, start: number, end: number, out: Buffer, at: number): boolean {
  if (!plainText(bytes, start, end)) return false;
  const time = normalizeRfc3339(bytes.toString('latin1', start, end));
  if (!time.ok) return false;
  out.write(time.value, at, NORMALIZED, 'latin1');
  return true;
}

/** An Avro string of bytes [start, end) (absent, start -1: the empty string). */
function writeText(bytes: Buffer, start: number, end: number, out: Buffer, at: number): number {
  const length = start < 0 ? 0 : end - start;
  const next = writeLong(out, at, length);
  return length > 0 ? next + bytes.copy(out, next, start, end) : next;
}

/** Whether trim() of the text leaves nothing (requireTrialName's rule). */
function blank(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c >= 0x80) return bytes.toString('utf8', start, end).trim() === '';
    if (c !== 0x20 && (c < 0x09 || c > 0x0d)) return false;
  }
  return true;
}

/**
 * The event's value (single-object encoding behind `header`) and its key, or undefined when the
 * generic path must answer (it rejects every report this function refuses but non-UTF-8 text).
 */
export function encodeReportedEvent(
  report: ParsedReport,
  ids: { readonly eventId: string; readonly now: number },
  header: Buffer,
): { trialName: string; value: Buffer } | undefined {
  const { bytes, logs, count, trialStart, trialEnd } = report;
  if (trialStart < 0 || blank(bytes, trialStart, trialEnd) || !plainText(bytes, trialStart, trialEnd)) return;
  if (!report.hasObservationLog || count === 0) return;
  const trialLength = trialEnd - trialStart;
  let size = header.length + 1 + ids.eventId.length + longSize(ids.now) + longSize(trialLength) + trialLength;
  size += longSize(count) + 1;
  for (let slot = 0; slot < count * LOG_SLOTS; slot += LOG_SLOTS) {
    if (logs[slot + TIME]! < 0 || logs[slot + HAS_METRIC] !== 1) return;
    const nameStart = logs[slot + NAME]!;
    const nameEnd = logs[slot + NAME + 1]!;
    if (nameStart < 0 || nameEnd === nameStart || !plainText(bytes, nameStart, nameEnd)) return;
    const valueLength = Math.max(0, logs[slot + VALUE + 1]! - logs[slot + VALUE]!);
    if (valueLength > 0 && !plainText(bytes, logs[slot + VALUE]!, logs[slot + VALUE + 1]!)) return;
    const nameLength = nameEnd - nameStart;
    size += 1 + NORMALIZED + longSize(nameLength) + nameLength + longSize(valueLength) + valueLength;
  }
  const out = Buffer.allocUnsafe(size);
  let at = header.copy(out, 0);
  at = writeLong(out, at, ids.eventId.length);
  at += out.write(ids.eventId, at, 'latin1');
  at = writeLong(out, at, ids.now);
  at = writeLong(out, at, trialLength);
  at += bytes.copy(out, at, trialStart, trialEnd);
  at = writeLong(out, at, count);
  for (let slot = 0; slot < count * LOG_SLOTS; slot += LOG_SLOTS) {
    out[at++] = NORMALIZED * 2;
    if (!writeTime(bytes, logs[slot + TIME]!, logs[slot + TIME + 1]!, out, at)) return;
    at += NORMALIZED;
    at = writeText(bytes, logs[slot + NAME]!, logs[slot + NAME + 1]!, out, at);
    at = writeText(bytes, logs[slot + VALUE]!, logs[slot + VALUE + 1]!, out, at);
  }
  out[at++] = 0;
  return { trialName: bytes.toString('utf8', trialStart, trialEnd), value: out };
}
