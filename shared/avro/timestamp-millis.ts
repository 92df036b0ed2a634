import avro from 'avsc';

/**
 * `timestamp-millis` over `long`: decodes to a Date; encodes a Date or epoch milliseconds.
 * avsc has no built-in one.
 */
export class TimestampMillisType extends avro.types.LogicalType {
  protected override _fromValue(value: number): Date {
    return new Date(value);
  }

  protected override _toValue(value: unknown): number | undefined {
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    return undefined;
  }

  protected override _resolve(type: avro.Type): ((value: number) => number) | undefined {
    if (type instanceof TimestampMillisType) return (value) => value;
    if (avro.Type.isType(type, 'long')) return (value) => value;
    return undefined;
  }
}

export const LOGICAL_TYPES = Object.freeze({ 'timestamp-millis': TimestampMillisType });
