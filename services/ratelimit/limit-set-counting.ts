// The store's part of a decision whose request holds a descriptor with several limits, or with a
// sliding window or token bucket (Check kind 'limits'): fixed windows go to the counter store's
// INCRBY pipeline as every other limit does, sliding windows and buckets to its atomic operations,
// both at once; then each descriptor's status from its limits' outcomes. A request without such a
// descriptor never comes here (service.ts keeps the reference's path).
import { AppError } from '../../shared/errors.ts';
import type { Check, DescriptorStatus } from './domain/decision.ts';
import { statusFromCount } from './domain/decision.ts';
import type { LimitOutcome } from './domain/limit-outcome.ts';
import { atomicOutcome, cachedOutcome, fixedWindowOutcome, statusOfLimitSet } from './domain/limit-set.ts';
import type { OverLimitCache } from './domain/local-cache.ts';
import type { CounterIncrement, CounterStore, LimitOperation, LimitReply } from './ports.ts';

type LimitCheck = Extract<Check, { kind: 'limit' }>;
type LimitSetCheck = Extract<Check, { kind: 'limits' }>;

export interface LimitSetContext {
  readonly store: CounterStore;
  readonly localCache: OverLimitCache | undefined;
  readonly nearLimitRatio: number;
  readonly stopIncrementWhenOverLimit: boolean;
}

/** The reference's status of a counted fixed-window check, caching its key when it went over. */
export function countedStatus(
  check: LimitCheck,
  count: number,
  nearLimitRatio: number,
  nowMs: number,
  localCache: OverLimitCache | undefined,
): DescriptorStatus {
  const status = statusFromCount(check, count, nearLimitRatio, Math.floor(nowMs / 1000));
  // Shadowed statuses are OK but still over: their key is cached as envoyproxy/ratelimit does.
  if (localCache !== undefined && count > check.rule.requestsPerUnit)
    localCache.add(check.key.key, check.key.windowSeconds, nowMs);
  return status;
}

/** A fixed window to count: whose it is and its limit (for STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT). */
interface FixedSlot {
  readonly item: CounterIncrement;
  readonly limit: number;
  /** The index of a reference check, or -1 for a part of a limit-set check. */
  readonly legacy: number;
  readonly set: number;
  readonly part: number;
}

interface AtomicSlot {
  readonly operation: LimitOperation;
  readonly set: number;
  readonly part: number;
}

/**
 * Counts the checks without a status yet (the reference's ones the local cache did not answer, and
 * every limit-set check) and fills their statuses. `cachedOverLimit`: a reference check was found
 * over in the local cache (then, with STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, nothing is added).
 */
export async function countWithLimitSets(
  context: LimitSetContext,
  checks: readonly Check[],
  statuses: DescriptorStatus[],
  cachedOverLimit: boolean,
  nowMs: number,
): Promise<void> {
  const { localCache } = context;
  const fixed: FixedSlot[] = [];
  const sets: number[] = [];
  checks.forEach((check, index) => {
    if (check.kind === 'limits') sets.push(index);
    else if (check.kind === 'limit' && statuses[index] === undefined) {
      const { key, addend } = check;
      const item = { key: key.key, addend, windowSeconds: key.windowSeconds, perSecond: key.perSecond };
      fixed.push({ item, limit: check.rule.requestsPerUnit, legacy: index, set: -1, part: -1 });
    }
  });
  const atomic: AtomicSlot[] = [];
  const outcomes: LimitOutcome[][] = [];
  const cached: boolean[][] = [];
  let anyCached = cachedOverLimit;
  sets.forEach((index, set) => {
    const check = checks[index] as LimitSetCheck;
    outcomes.push(new Array(check.parts.length));
    cached.push(check.parts.map(() => false));
    check.parts.forEach((part, p) => {
      const until = localCache?.overUntil(part.key, nowMs) ?? 0;
      if (until > 0) {
        outcomes[set]![p] = cachedOutcome(part.spec, until, nowMs);
        cached[set]![p] = true;
        anyCached = true;
      } else if (part.spec.algorithm === 'fixed_window') {
        const item = {
          key: part.key,
          addend: check.addend,
          windowSeconds: part.spec.windowSeconds,
          perSecond: part.perSecond,
        };
        fixed.push({ item, limit: part.spec.requestsPerUnit, legacy: -1, set, part: p });
      } else {
        const operation = {
          key: part.key,
          spec: part.spec,
          addend: check.addend,
          consume: true,
          nowMs,
          perSecond: part.perSecond,
        };
        atomic.push({ operation, set, part: p });
      }
    });
  });

  const { counts, replies, consumed } = await run(context, fixed, atomic, anyCached);

  fixed.forEach((slot, i) => {
    const count = counts[i]!;
    if (slot.legacy >= 0) {
      const check = checks[slot.legacy] as LimitCheck;
      statuses[slot.legacy] = countedStatus(check, count, context.nearLimitRatio, nowMs, localCache);
    } else {
      const check = checks[sets[slot.set]!] as LimitSetCheck;
      outcomes[slot.set]![slot.part] = fixedWindowOutcome(
        check.parts[slot.part]!.spec,
        count,
        check.addend,
        nowMs,
      );
    }
  });
  atomic.forEach((slot, i) => {
    const { operation } = slot;
    const reply = replies[i]!;
    const added = reply.admitted && consumed ? operation.addend : 0;
    outcomes[slot.set]![slot.part] = atomicOutcome(
      operation.spec,
      reply.before,
      nowMs,
      operation.addend,
      reply.admitted,
      added,
    );
  });
  sets.forEach((index, set) => {
    const check = checks[index] as LimitSetCheck;
    if (localCache !== undefined)
      check.parts.forEach((part, p) => {
        const outcome = outcomes[set]![p]!;
        if (!cached[set]![p] && outcome.retryMs > 0) localCache.add(part.key, outcome.retryMs / 1000, nowMs);
      });
    statuses[index] = statusOfLimitSet(check, outcomes[set]!, cached[set]!, context.nearLimitRatio);
  });
}

const NOTHING: readonly never[] = Object.freeze([]);

/**
 * Sends the fixed windows and the atomic operations at once. With
 * STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, everything is read first (INCRBY 0, operations that do
 * not consume); when something would go over, only the fixed windows that would are added to and no
 * operation consumes (their reads answer), as the reference does for its counters.
 */
async function run(
  context: LimitSetContext,
  fixed: readonly FixedSlot[],
  atomic: readonly AtomicSlot[],
  anyCached: boolean,
): Promise<{ counts: readonly number[]; replies: readonly LimitReply[]; consumed: boolean }> {
  const { store } = context;
  const take = (operations: readonly LimitOperation[]): Promise<readonly LimitReply[]> => {
    if (operations.length === 0) return Promise.resolve(NOTHING);
    if (store.take === undefined)
      throw new AppError('INTERNAL', 'this counter store keeps no sliding windows or token buckets');
    return store.take(operations);
  };
  const increment = (items: readonly CounterIncrement[]): Promise<readonly number[]> =>
    items.length === 0 ? Promise.resolve(NOTHING) : store.increment(items);
  const items = fixed.map((slot) => slot.item);
  const operations = atomic.map((slot) => slot.operation);
  if (!context.stopIncrementWhenOverLimit) {
    if (items.length === 0) return { counts: NOTHING, replies: await take(operations), consumed: true };
    if (operations.length === 0) return { counts: await increment(items), replies: NOTHING, consumed: true };
    const [counts, replies] = await Promise.all([increment(items), take(operations)]);
    return { counts, replies, consumed: true };
  }
  const reads = items.map((item) => (item.addend === 0 ? item : { ...item, addend: 0 }));
  const peeks = operations.map((operation) => ({ ...operation, consume: false }));
  const [current, peeked] = await Promise.all([increment(reads), take(peeks)]);
  if (anyCached) return { counts: current, replies: peeked, consumed: false };
  const over = fixed.map((slot, i) => current[i]! + slot.item.addend > slot.limit);
  if (!over.includes(true) && peeked.every((reply) => reply.admitted)) {
    const [counts, replies] = await Promise.all([increment(items), take(operations)]);
    return { counts, replies, consumed: true };
  }
  const counts = await increment(items.map((item, i) => (over[i] ? item : reads[i]!)));
  return { counts, replies: peeked, consumed: false };
}
