// Random request header lists for node:http2's client: names from a small pool (so the encoder's
// dynamic table is used and evicted) and fresh ones, latin1 values of any length, repeated fields,
// and sensitive ones (never-indexed literals).
import http2 from 'node:http2';
import { pick, type Rng } from '../fuzz-core.ts';

const POOL = [
  'user-agent',
  'x-request-id',
  'grpc-timeout',
  'authorization',
  'cookie',
  'x-b3-traceid',
  'accept',
];
const NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-_.!#$%&'*+^`|~";

function name(rng: Rng): string {
  if (rng.int(2) === 0) return pick(rng, POOL);
  let out = pick(rng, ['x-', 'grpc-', '']);
  for (let n = 1 + rng.int(12); n > 0; n--) out += pick(rng, [...NAME_CHARS]);
  return out;
}

/** A field value: visible latin1 and inner spaces and tabs (no leading or trailing whitespace). */
export function fieldValue(rng: Rng): string {
  const length = rng.int(50) === 0 ? 2_000 : pick(rng, [0, 1, 5, 20, 60, rng.int(200)]);
  let out = '';
  for (let i = 0; i < length; i++) {
    const roll = rng.int(20);
    const code =
      roll === 0
        ? 0x80 + rng.int(128)
        : roll === 1 && i > 0 && i < length - 1
          ? pick(rng, [0x20, 0x09])
          : 0x21 + rng.int(94);
    out += String.fromCharCode(code);
  }
  return out;
}

export function randomHeaderFields(rng: Rng): http2.OutgoingHttpHeaders {
  const headers: http2.OutgoingHttpHeaders = {
    ':method': pick(rng, ['POST', 'GET', 'PUT']),
    ':path': `/${pick(rng, ['pkg.Service/Method', 'a', fieldValue(rng).replace(/[\s\x80-\xff]/g, '')])}`,
    'content-type': pick(rng, ['application/grpc', 'application/grpc+proto', 'text/plain']),
  };
  const sensitive: string[] = [];
  for (let n = rng.int(10); n > 0; n--) {
    const key = name(rng);
    if (key === 'te' || key in headers) continue;
    headers[key] =
      key.startsWith('x-') && rng.int(4) === 0 ? [fieldValue(rng), fieldValue(rng)] : fieldValue(rng);
    if (rng.int(8) === 0) sensitive.push(key);
  }
  if (sensitive.length > 0) (headers as Record<symbol, unknown>)[http2.sensitiveHeaders] = sensitive;
  return headers;
}
