// The xDS, gRPC TLS and tracing settings: reference defaults, and every bad one (certificate files
// included) named in the one SettingsError with the others.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRatelimitSettings } from '../../../services/ratelimit/settings/index.ts';
import { SettingsError } from '../../../shared/settings.ts';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    readRatelimitSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) return [...error.problems];
    throw error;
  }
  return [];
};

describe('xDS, TLS and tracing settings', () => {
  let dir: string;
  const file = (name: string) => join(dir, name);
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ratelimit-settings-'));
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file('a.key'));
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      file('a.key'),
      '-out',
      file('a.crt'),
      '-days',
      '1',
      '-subj',
      '/CN=a',
    );
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file('b.key'));
    writeFileSync(file('garbage.pem'), 'not a certificate\n');
    writeFileSync(file('locked.key'), 'x');
    chmodSync(file('locked.key'), 0o000);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has the reference defaults', () => {
    expect(readRatelimitSettings({})).toMatchObject({
      grpcServerUseTls: false,
      xdsNodeId: 'default',
      xdsNodeMetadata: {},
      xdsServerUrl: 'localhost:18000',
      xdsServerConnectRetryIntervalMs: 3_000,
      xdsBackoffInitialMs: 10_000,
      xdsBackoffMaxMs: 60_000,
      xdsBackoffRandomFactor: 0.5,
      xdsBackoffJitter: true,
      xdsMaxMsgSizeBytes: 0,
      tracingEnabled: false,
      tracingExporterProtocol: 'http',
      tracingServiceName: 'RateLimit',
      tracingServiceNamespace: '',
      tracingServiceInstanceId: '',
      tracingSamplingRate: 1,
    });
  });

  it('reads CONFIG_TYPE=GRPC_XDS_SOTW with node metadata, headers and the OTLP variables', () => {
    const s = readRatelimitSettings({
      CONFIG_TYPE: 'GRPC_XDS_SOTW',
      CONFIG_GRPC_XDS_NODE_METADATA: 'zone=a,team=edge',
      CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS: 'x-tenant:blue,authorization:Bearer t',
      CONFIG_GRPC_XDS_SERVER_URL: '127.0.0.1:18001',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      TRACING_SAMPLING_RATE: '0.25',
    });
    expect(s.configType).toBe('GRPC_XDS_SOTW');
    expect(s.xdsNodeMetadata).toEqual({ zone: 'a', team: 'edge' });
    expect(s.xdsClientAdditionalHeaders).toEqual({ 'x-tenant': 'blue', authorization: 'Bearer t' });
    expect(s.otlp).toEqual({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
    expect(s.tracingSamplingRate).toBe(0.25);
  });

  it('accepts a readable certificate and key of one pair', () => {
    const s = readRatelimitSettings({
      GRPC_SERVER_USE_TLS: 'true',
      GRPC_SERVER_TLS_CERT: file('a.crt'),
      GRPC_SERVER_TLS_KEY: file('a.key'),
      GRPC_CLIENT_TLS_CACERT: file('a.crt'),
      GRPC_CLIENT_TLS_SAN: 'envoy',
    });
    expect(s.grpcServerUseTls).toBe(true);
  });

  it('names every bad setting in one error, certificate files and the other settings alike', () => {
    const problems = problemsOf({
      PORT: 'x',
      CONFIG_TYPE: 'XDS',
      TRACING_SAMPLING_RATE: '2',
      TRACING_EXPORTER_PROTOCOL: 'udp',
      CONFIG_GRPC_XDS_NODE_METADATA: 'zone',
      GRPC_SERVER_USE_TLS: 'true',
      GRPC_SERVER_TLS_CERT: file('missing.crt'),
      GRPC_SERVER_TLS_KEY: file('locked.key'),
      GRPC_CLIENT_TLS_CACERT: file('garbage.pem'),
    });
    const text = problems.join('\n');
    expect(text).toContain('PORT="x" is not allowed');
    expect(text).toContain('CONFIG_TYPE="XDS" is not allowed: one of FILE, KAFKA, GRPC_XDS_SOTW');
    expect(text).toContain('TRACING_SAMPLING_RATE="2" is not allowed: a number from 0 to 1');
    expect(text).toContain('TRACING_EXPORTER_PROTOCOL="udp" is not allowed: one of http, grpc');
    expect(text).toContain(
      'CONFIG_GRPC_XDS_NODE_METADATA="zone" is not allowed: comma-separated key=value pairs',
    );
    expect(text).toContain(
      `GRPC_SERVER_TLS_CERT="${file('missing.crt')}" is not allowed: cannot read the file (ENOENT`,
    );
    // root reads a mode-000 file: then the key is refused as not PEM instead.
    expect(text).toMatch(
      /GRPC_SERVER_TLS_KEY=".*locked\.key" is not allowed: (cannot read the file|not a usable PEM file)/,
    );
    expect(text).toContain(
      `GRPC_CLIENT_TLS_CACERT="${file('garbage.pem')}" is not allowed: not a usable PEM file`,
    );
  });

  it('refuses TLS without the key, a key of another pair, and a SAN without a CA', () => {
    expect(problemsOf({ GRPC_SERVER_USE_TLS: 'true', GRPC_SERVER_TLS_CERT: file('a.crt') })).toEqual([
      'GRPC_SERVER_TLS_KEY is required: GRPC_SERVER_USE_TLS=true needs the server certificate and key',
    ]);
    const mismatch = problemsOf({
      GRPC_SERVER_USE_TLS: 'true',
      GRPC_SERVER_TLS_CERT: file('a.crt'),
      GRPC_SERVER_TLS_KEY: file('b.key'),
      GRPC_CLIENT_TLS_SAN: 'envoy',
    });
    expect(mismatch[0]).toMatch(/^GRPC_SERVER_TLS_CERT and GRPC_SERVER_TLS_KEY do not make a pair/);
    expect(mismatch[1]).toMatch(/^GRPC_CLIENT_TLS_SAN is set without GRPC_CLIENT_TLS_CACERT/);
  });

  it('checks the xDS TLS files and server URL only with CONFIG_TYPE=GRPC_XDS_SOTW', () => {
    const xds = {
      CONFIG_GRPC_XDS_SERVER_URL: 'no port',
      CONFIG_GRPC_XDS_SERVER_USE_TLS: 'true',
      CONFIG_GRPC_XDS_CLIENT_TLS_CERT: file('a.crt'),
      CONFIG_GRPC_XDS_SERVER_TLS_CACERT: file('missing-ca.crt'),
    };
    expect(problemsOf(xds)).toEqual([]);
    expect(problemsOf({ ...xds, CONFIG_TYPE: 'grpc_xds_sotw' })).toEqual([
      'CONFIG_GRPC_XDS_SERVER_URL="no port" is not allowed: host:port of the xDS management server',
      'CONFIG_GRPC_XDS_CLIENT_TLS_KEY is required: a client certificate needs both the certificate and the key',
      `CONFIG_GRPC_XDS_SERVER_TLS_CACERT="${file('missing-ca.crt')}" is not allowed: cannot read the file (ENOENT: no such file or directory, open '${file('missing-ca.crt')}')`,
    ]);
  });
});
