// Which start-up failures stop the rate limiter at once (a wrong password, a refused certificate)
// instead of waiting for Redis, including a refusal seen only by the connection.
import { describe, expect, it } from 'vitest';
import { misconfiguration, refusalAmong } from '../../../services/ratelimit/adapters/redis/redis-store.ts';

const reset = Object.assign(new Error('write ECONNRESET'), { code: 'ECONNRESET' });
const alert = new Error(
  '40BDE7BDDF7F0000:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 116',
);

describe('redis start-up refusals', () => {
  it('a reset connection or an exhausted retry is worth waiting for', () => {
    expect(misconfiguration(reset)).toBeUndefined();
    expect(
      refusalAmong([reset, new Error('Reached the max retries per request limit (which is 0).')]),
    ).toBeUndefined();
  });

  it('a TLS alert among the connection’s errors stops the start, though the command saw ECONNRESET', () => {
    const refusal = refusalAmong([reset, reset, alert]);
    expect(refusal).toMatch(
      /^TLS refused \(check REDIS_TLS_CACERT, REDIS_TLS_CLIENT_CERT, REDIS_TLS_CLIENT_KEY\): /,
    );
    expect(refusal).toContain('alert certificate required');
  });

  it('the first refusal wins: a wrong password before a TLS alert', () => {
    expect(refusalAmong([new Error('WRONGPASS invalid username-password pair'), alert])).toMatch(
      /^authentication refused \(check REDIS_AUTH/,
    );
  });
});
