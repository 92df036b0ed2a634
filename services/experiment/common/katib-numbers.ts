// Katib carries every number as text. These read bounds, values and settings the way its Python
// services do (float()/int(), with their messages), and write values back in one stable form.

import { invalidArgument } from '../../../shared/errors.ts';

const DECIMAL = /^[+-]?(\d+(_\d+)*\.?(\d+(_\d+)*)?|\.\d+(_\d+)*)([eE][+-]?\d+)?$/;
const SPECIAL = /^[+-]?(inf|infinity|nan)$/i;
const INTEGER = /^[+-]?\d+(_\d+)*$/;

/** A decimal number as Python's float() reads it (no hex, no empty string); undefined otherwise. */
export function parseDecimal(text: string): number | undefined {
  const trimmed = text.trim();
  if (SPECIAL.test(trimmed)) {
    const lower = trimmed.toLowerCase();
    if (lower.endsWith('nan')) return Number.NaN;
    return lower.startsWith('-') ? -Infinity : Infinity;
  }
  if (!DECIMAL.test(trimmed)) return undefined;
  return Number(trimmed.replaceAll('_', ''));
}

/** A finite decimal number, or undefined (bounds, steps and observed values must be finite). */
export function parseFinite(text: string): number | undefined {
  const value = parseDecimal(text);
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

/** Python's int(text): whole decimal literals only ("1.0" is not one). */
export function parsePythonInt(text: string): number | undefined {
  const trimmed = text.trim();
  return INTEGER.test(trimmed) ? Number(trimmed.replaceAll('_', '')) : undefined;
}

/** The message Python's int() raises for a bad literal, as Katib quotes it. */
export const pythonIntError = (text: string): string => `invalid literal for int() with base 10: '${text}'`;
/** The message Python's float() raises for a bad literal, as Katib quotes it. */
export const pythonFloatError = (text: string): string => `could not convert string to float: '${text}'`;

/** A setting's int(value), failing as Katib's validators do: `failed to validate name(value): ...`. */
export function readInt(name: string, value: string): number {
  const parsed = parsePythonInt(value);
  if (parsed === undefined)
    throw invalidArgument(`failed to validate ${name}(${value}): ${pythonIntError(value)}`);
  return parsed;
}

/** A setting's float(value) (inf and nan included), failing as Katib's validators do. */
export function readFloat(name: string, value: string): number {
  const parsed = parseDecimal(value);
  if (parsed === undefined)
    throw invalidArgument(`failed to validate ${name}(${value}): ${pythonFloatError(value)}`);
  return parsed;
}

/**
 * A DOUBLE value as text: the shortest digits that read back as the same double (what Python's
 * repr and JavaScript's String choose), written without an exponent so every parser (Go, Python,
 * shells, argparse) takes it, and with ".0" on whole numbers as Katib's Python services write them.
 */
export function formatDouble(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`cannot format ${value} as a DOUBLE value`);
  if (Object.is(value, -0)) return '0.0';
  const text = String(value);
  const plain = text.includes('e') ? expandExponent(value) : text;
  return plain.includes('.') ? plain : `${plain}.0`;
}

/** Writes a number that String() gives in exponent form as plain decimal digits (same digits). */
function expandExponent(value: number): string {
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const exponent = Number(exponentText);
  const sign = negative ? '-' : '';
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  if (digits.length <= exponent + 1) return `${sign}${digits}${'0'.repeat(exponent + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
}

/** An INT value as text. */
export function formatInt(value: number): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`cannot format ${value} as an INT value`);
  return Object.is(value, -0) ? '0' : String(value);
}

/** Python's str() of a float (repr): `10.0`, `1.1111111111111112`, `1e-05`, `1e+16`. */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return formatDouble(value);
}
