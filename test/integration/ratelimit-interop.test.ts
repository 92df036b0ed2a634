// The gRPC listener's own HTTP/2 against clients and a checker nobody here wrote: h2spec (every
// section: the HTTP/2 and HPACK conformance cases and the generic ones) in plaintext and over TLS,
// Debian's python3-grpcio (C core) deciding, checking health and calling a missing method, and
// envoyproxy/ratelimit's own client (grpc-go) over TLS.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { H2SPEC, PREPARATION_HOOK_TIMEOUT_MS, prepared, RATELIMIT_CLIENT } from '../helpers/preparations.ts';
import { createRuntimeFolder, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import { type RatelimitServer, random, startRatelimitServer } from '../helpers/ratelimit-server.ts';
import { type ListenerCertificates, listenerCertificates } from '../helpers/tls-certs.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CLIENT = join(ROOT, 'test', 'interop', 'ratelimit_client.py');
/** Every h2spec case passes: 94 of RFC 7540 (http2), 7 of RFC 7541 (hpack), 44 generic ones. */
const H2SPEC_ALL_PASS = '145 tests, 145 passed, 0 skipped, 0 failed';

const CONFIG = `domain: interop
descriptors:
  - key: k
    rate_limit:
      unit: hour
      requests_per_unit: 3
`;

// h2spec and the Go client, built into the gitignored .bench-tools/ when missing
// (test/helpers/preparations.ts): waited for once, before the tests that run them.
beforeAll(() => prepared('interop-tools'), PREPARATION_HOOK_TIMEOUT_MS);

/** h2spec's summary line and the failures it lists (none when every case passes). */
async function conformance(port: number, tls: boolean): Promise<{ summary: string; failures: string }> {
  const args = ['-h', '127.0.0.1', '-p', String(port), '-o', '5', ...(tls ? ['-t', '-k'] : [])];
  const output = await run(H2SPEC, args, { timeout: 300_000, maxBuffer: 1 << 24 }).then(
    (done) => done.stdout,
    (failed: { stdout?: string }) => failed.stdout ?? String(failed),
  );
  const summary = /\d+ tests, \d+ passed, \d+ skipped, \d+ failed/.exec(output)?.[0] ?? output.slice(-2000);
  const failures = output.includes('\nFailures:') ? output.slice(output.indexOf('\nFailures:')) : '';
  return { summary, failures };
}

const python = async (...args: string[]) =>
  JSON.parse((await run('/usr/bin/python3', [CLIENT, ...args], { timeout: 60_000 })).stdout) as {
    decisions: Array<[number, number]>;
    check: number;
    watch: number;
    unknown: [string, string];
  };

describe('the gRPC listener with clients nobody here wrote', () => {
  let dir: string;
  let runtime: RuntimeFolder;
  let certs: ListenerCertificates;
  let plain: RatelimitServer;
  let tls: RatelimitServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratelimit-interop-'));
    certs = await listenerCertificates(dir, 'interop');
    runtime = await createRuntimeFolder({ 'interop.yaml': CONFIG });
    const common = {
      REDIS_URL: inject('infra').REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
    };
    plain = await startRatelimitServer(common);
    tls = await startRatelimitServer({
      ...common,
      GRPC_SERVER_USE_TLS: 'true',
      GRPC_SERVER_TLS_CERT: certs.certFile,
      GRPC_SERVER_TLS_KEY: certs.keyFile,
    });
  });

  afterAll(async () => {
    await plain?.stop();
    await tls?.stop();
    await runtime?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('passes every h2spec case in plaintext (prior knowledge)', async () => {
    expect(await conformance(plain.grpcPort, false)).toEqual({ summary: H2SPEC_ALL_PASS, failures: '' });
  });

  it('passes every h2spec case over TLS (ALPN h2)', async () => {
    expect(await conformance(tls.grpcPort, true)).toEqual({ summary: H2SPEC_ALL_PASS, failures: '' });
  });

  it('decides for python3-grpcio until over the limit, serves health Check and Watch, refuses a missing method', async () => {
    const answer = await python(plain.grpcAddress, 'interop', 'k', random(), '4');
    // overall_code (1 OK, 2 OVER_LIMIT) and limit_remaining, call after call.
    expect(answer).toEqual({
      decisions: [
        [1, 2],
        [1, 1],
        [1, 0],
        [2, 0],
      ],
      check: 1,
      watch: 1,
      unknown: [
        'UNIMPLEMENTED',
        'The server does not implement the method /envoy.service.ratelimit.v3.RateLimitService/Nope',
      ],
    });
  });

  it('decides for python3-grpcio over TLS', async () => {
    const answer = await python(tls.grpcAddress, 'interop', 'k', random(), '1', certs.ca.cert);
    expect(answer.decisions).toEqual([[1, 2]]);
    expect(answer.check).toBe(1);
  });

  it("decides for envoyproxy/ratelimit's own client (grpc-go) over TLS", async () => {
    const client = RATELIMIT_CLIENT;
    const { stdout } = await run(
      client,
      [
        '-dial_string',
        tls.grpcAddress,
        '-grpc-use-tls',
        '-grpc-server-ca-file',
        certs.ca.cert,
        '-domain',
        'interop',
        '-descriptors',
        `k=${random()}`,
      ],
      { timeout: 60_000 },
    );
    // Go's protobuf text format puts random spaces between a field and its value.
    expect(stdout.replace(/\s+/g, ' ')).toMatch(
      /overall_code: ?OK statuses: ?\{ ?code: ?OK .*limit_remaining: ?2/,
    );
  });
});
