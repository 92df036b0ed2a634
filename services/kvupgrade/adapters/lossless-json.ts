type Reviver = (key: string, value: unknown, context: { source?: string }) => unknown;

/**
 * JSON.parse that keeps integers beyond 2^53 exact, as their decimal text. etcdctl prints member
 * and cluster IDs (uint64) as JSON numbers; plain JSON.parse rounds 18003949360126019154 to
 * 18003949360126020000. Uses the reviver's source text (Node 22+).
 */
export function parseJsonLossless(text: string): unknown {
  const reviver: Reviver = (_key, value, context) =>
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    context.source !== undefined &&
    /^-?\d+$/.test(context.source)
      ? context.source
      : value;
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

/** A uint64 as etcd sends it (decimal string or safe number) → decimal string; undefined when not one. */
export function uint64Text(value: unknown): string | undefined {
  if (typeof value === 'string' && /^\d+$/.test(value))
    return BigInt(value) < 2n ** 64n ? BigInt(value).toString() : undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return undefined;
}

/** etcdctl's table form of an ID: `f9dae08dd46ec652`. */
export const hexId = (decimal: string): string => BigInt(decimal).toString(16);
