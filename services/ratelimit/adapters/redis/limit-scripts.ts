// The Lua scripts of sliding windows and token buckets: each operation one script on one key (so
// one hash slot in a cluster), atomic on the server. They run the arithmetic of
// domain/sliding-window.ts and domain/token-bucket.ts (the reference; a test holds the two
// together) with the decision's time as an argument, and reply the state they found, from which
// the domain makes the status. Numbers stay below 2^53 (checked at load), so Lua's doubles are exact;
// floordiv corrects a quotient the division rounded.
import { createHash } from 'node:crypto';
import { SUB_WINDOWS } from '../../domain/sliding-window.ts';
import type { LimitOperation, LimitReply } from '../../ports.ts';

const FLOOR_DIV = `local function floordiv(a, b)
  local q = math.floor(a / b)
  local rest = a - q * b
  if rest < 0 then q = q - 1 elseif rest >= b then q = q + 1 end
  return q
end
`;

/**
 * KEYS[1]: a hash of sub-window → admitted hits. ARGV: now ms, sub-window ms, sub-windows counted
 * before the current one, limit, hits, consume (1/0). Replies {admitted, sub-window, hits, ...}
 * with the sub-windows still counted before it; when admitted and consuming, adds the hits to the
 * current sub-window, drops those no longer counted, and keeps the hash until its newest leaves.
 */
export const SLIDING_WINDOW_LUA = `${FLOOR_DIV}local now = tonumber(ARGV[1])
local sub = tonumber(ARGV[2])
local before = tonumber(ARGV[3])
local current = floordiv(now, sub)
local oldest = current - before
local hits = tonumber(ARGV[5])
local fields = redis.call('HGETALL', KEYS[1])
local reply = {0}
local used = 0
local newest = current
local stale = {}
for i = 1, #fields, 2 do
  local index = tonumber(fields[i])
  if index < oldest then
    stale[#stale + 1] = fields[i]
  else
    local count = tonumber(fields[i + 1])
    used = used + count
    reply[#reply + 1] = index
    reply[#reply + 1] = count
    if index > newest then newest = index end
  end
end
if used + hits <= tonumber(ARGV[4]) then
  reply[1] = 1
  if ARGV[6] == '1' and hits > 0 then
    if #stale > 0 then redis.call('HDEL', KEYS[1], unpack(stale)) end
    redis.call('HINCRBY', KEYS[1], string.format('%d', current), hits)
    redis.call('PEXPIRE', KEYS[1], string.format('%d', (newest + before + 1) * sub - now))
  end
end
return reply
`;

/**
 * GCRA. KEYS[1]: the TAT as `<ms>:<ticks>` (ticks of 1/rate ms), absent when the bucket is full.
 * ARGV: now ms, rate, period ms, burst, hits, consume (1/0). Replies {admitted} or {admitted, ms,
 * ticks} (the TAT it found); when admitted and consuming, stores the new TAT until it is past.
 */
export const TOKEN_BUCKET_LUA = `${FLOOR_DIV}local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
local hits = tonumber(ARGV[5])
local reply = {0}
local ms, ticks = now, 0
local stored = redis.call('GET', KEYS[1])
if stored then
  local m, t = string.match(stored, '^(%d+):(%d+)$')
  if m then
    m = tonumber(m)
    t = tonumber(t)
    reply[2] = m
    reply[3] = t
    if m > now or (m == now and t > 0) then ms, ticks = m, t end
  end
end
if hits <= burst then
  local total = ticks + hits * period
  local carry = floordiv(total, rate)
  ms = ms + carry
  ticks = total - carry * rate
  local capacity = burst * period
  local capMs = floordiv(capacity, rate)
  local capTicks = capacity - capMs * rate
  local ahead = ms - now
  if ahead < capMs or (ahead == capMs and ticks <= capTicks) then
    reply[1] = 1
    if ARGV[6] == '1' and hits > 0 then
      local ttl = ahead
      if ticks > 0 then ttl = ttl + 1 end
      redis.call('SET', KEYS[1], string.format('%d:%d', ms, ticks), 'PX', string.format('%d', ttl))
    end
  end
end
return reply
`;

export interface LimitScript {
  readonly name: string;
  readonly lua: string;
  readonly sha: string;
}

const script = (name: string, lua: string): LimitScript => ({
  name,
  lua,
  sha: createHash('sha1').update(lua).digest('hex'),
});

export const SLIDING_WINDOW_SCRIPT = script('ratelimitSlidingWindow', SLIDING_WINDOW_LUA);
export const TOKEN_BUCKET_SCRIPT = script('ratelimitTokenBucket', TOKEN_BUCKET_LUA);

export const scriptOf = (operation: LimitOperation): LimitScript =>
  operation.spec.algorithm === 'sliding_window' ? SLIDING_WINDOW_SCRIPT : TOKEN_BUCKET_SCRIPT;

/** The script's ARGV for an operation. */
export function scriptArguments(operation: LimitOperation): string[] {
  const { spec, nowMs, addend, consume } = operation;
  const windowMs = spec.windowSeconds * 1000;
  const hits = String(addend);
  const flag = consume ? '1' : '0';
  if (spec.algorithm === 'sliding_window')
    return [
      String(nowMs),
      String(windowMs / SUB_WINDOWS),
      String(SUB_WINDOWS),
      String(spec.requestsPerUnit),
      hits,
      flag,
    ];
  return [String(nowMs), String(spec.requestsPerUnit), String(windowMs), String(spec.burst), hits, flag];
}

/** A script's reply (an array of integers) as the port's LimitReply. */
export function limitReply(values: readonly number[]): LimitReply {
  return { admitted: values[0] === 1, before: values.slice(1) };
}
