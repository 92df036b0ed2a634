// The settings of the xDS configuration source, of TLS on the gRPC listener and of tracing, under
// envoyproxy/ratelimit's names and defaults (reference 1.2 and 5.7). Read beside the others by
// readRatelimitSettings: every problem here (a missing or unreadable certificate file included)
// lands in the same SettingsError as the rest.
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import {
  bool,
  type Env,
  type Field,
  int,
  num,
  oneOf,
  type SettingsSpec,
  str,
} from '../../shared/settings.ts';
import { duration } from './settings.ts';

/** `k<sep>v,k<sep>v` pairs (CONFIG_GRPC_XDS_NODE_METADATA with `=`, _ADDITIONAL_HEADERS with `:`). */
function pairs(variable: string, separator: '=' | ':'): Field<Readonly<Record<string, string>>> {
  const allowed = `comma-separated key${separator}value pairs`;
  return {
    variable,
    allowed,
    defaultText: '',
    read(env) {
      const raw = env[variable] ?? '';
      const out: Record<string, string> = {};
      for (const pair of raw.split(',')) {
        if (pair.trim() === '') continue;
        const at = pair.indexOf(separator);
        if (at <= 0 || pair.slice(0, at).trim() === '')
          return {
            ok: false,
            problem: `${variable}=${JSON.stringify(raw)} is not allowed: ${allowed} (${JSON.stringify(pair)} has no key${separator}value)`,
          };
        out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
      }
      return { ok: true, value: Object.freeze(out) };
    },
  };
}

/** Every OTEL_EXPORTER_OTLP_* variable as given (the standard exporter settings). */
function otlpVariables(): Field<Readonly<Record<string, string>>> {
  return {
    variable: 'OTEL_EXPORTER_OTLP_*',
    allowed: 'the standard OTLP exporter variables (ENDPOINT, TRACES_ENDPOINT, HEADERS, TIMEOUT, ...)',
    defaultText: '',
    read(env) {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(env))
        if (name.startsWith('OTEL_EXPORTER_OTLP_') && value !== undefined && value !== '') out[name] = value;
      return { ok: true, value: Object.freeze(out) };
    },
  };
}

const PEM = (what: string) => `a PEM file: ${what}`;

// Built on first use: settings.ts imports this module and `duration` needs its constants.
const buildSpec = () => ({
  // TLS on the gRPC listener
  grpcServerUseTls: bool('GRPC_SERVER_USE_TLS', false),
  grpcServerTlsCert: str(
    'GRPC_SERVER_TLS_CERT',
    '',
    PEM('the server certificate chain (re-read when it changes)'),
  ),
  grpcServerTlsKey: str('GRPC_SERVER_TLS_KEY', '', PEM('the server private key (re-read when it changes)')),
  grpcClientTlsCacert: str(
    'GRPC_CLIENT_TLS_CACERT',
    '',
    PEM('the CA of client certificates; set: every client must present a certificate it signed'),
  ),
  grpcClientTlsSan: str('GRPC_CLIENT_TLS_SAN', '', 'a DNS name the client certificate must carry as SAN'),
  // xDS (CONFIG_TYPE=GRPC_XDS_SOTW)
  xdsNodeId: str('CONFIG_GRPC_XDS_NODE_ID', 'default', 'the node id sent to the xDS management server'),
  xdsNodeMetadata: pairs('CONFIG_GRPC_XDS_NODE_METADATA', '='),
  xdsServerUrl: str(
    'CONFIG_GRPC_XDS_SERVER_URL',
    'localhost:18000',
    'host:port of the xDS management server',
  ),
  xdsServerConnectRetryIntervalMs: duration('CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL', '3s'),
  xdsClientAdditionalHeaders: pairs('CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS', ':'),
  xdsServerUseTls: bool('CONFIG_GRPC_XDS_SERVER_USE_TLS', false),
  xdsClientTlsCert: str(
    'CONFIG_GRPC_XDS_CLIENT_TLS_CERT',
    '',
    PEM('client certificate towards the xDS server'),
  ),
  xdsClientTlsKey: str('CONFIG_GRPC_XDS_CLIENT_TLS_KEY', '', PEM('its private key')),
  xdsServerTlsCacert: str(
    'CONFIG_GRPC_XDS_SERVER_TLS_CACERT',
    '',
    PEM('the CA of the xDS server certificate'),
  ),
  xdsServerTlsSan: str(
    'CONFIG_GRPC_XDS_SERVER_TLS_SAN',
    '',
    'the name checked on the xDS server certificate',
  ),
  xdsBackoffInitialMs: duration('XDS_CLIENT_BACKOFF_INITIAL_INTERVAL', '10s'),
  xdsBackoffMaxMs: duration('XDS_CLIENT_BACKOFF_MAX_INTERVAL', '60s'),
  xdsBackoffRandomFactor: num('XDS_CLIENT_BACKOFF_RANDOM_FACTOR', 0.5, { min: 0, max: 100 }),
  xdsBackoffJitter: bool('XDS_CLIENT_BACKOFF_JITTER', true),
  xdsMaxMsgSizeBytes: int('XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES', 0, { min: 0, max: 2 ** 31 - 1 }),
  // Tracing
  tracingEnabled: bool('TRACING_ENABLED', false),
  tracingExporterProtocol: oneOf('TRACING_EXPORTER_PROTOCOL', ['http', 'grpc'] as const, 'http'),
  tracingServiceName: str('TRACING_SERVICE_NAME', 'RateLimit', 'the service.name of the spans'),
  tracingServiceNamespace: str('TRACING_SERVICE_NAMESPACE', '', 'the service.namespace of the spans'),
  tracingServiceInstanceId: str(
    'TRACING_SERVICE_INSTANCE_ID',
    '',
    'the service.instance.id of the spans; empty: a random UUID v4',
  ),
  tracingSamplingRate: num('TRACING_SAMPLING_RATE', 1, { min: 0, max: 1 }),
  otlp: otlpVariables(),
});

let spec: ReturnType<typeof buildSpec> | undefined;
/** The fields (for documentation and tests). */
export function ratelimitExtensionSpec(): ReturnType<typeof buildSpec> & SettingsSpec {
  spec ??= buildSpec();
  return spec;
}

type ExtensionValues = {
  readonly [K in keyof ReturnType<typeof buildSpec>]: ReturnType<typeof buildSpec>[K] extends Field<infer T>
    ? T
    : never;
};

/** What a certificate file check found: a problem, or nothing. */
function fileProblem(variable: string, path: string, check: (pem: Buffer) => void): string | undefined {
  let pem: Buffer;
  try {
    pem = readFileSync(path);
  } catch (error) {
    return `${variable}=${JSON.stringify(path)} is not allowed: cannot read the file (${(error as Error).message})`;
  }
  try {
    check(pem);
  } catch (error) {
    return `${variable}=${JSON.stringify(path)} is not allowed: not a usable PEM file (${(error as Error).message})`;
  }
  return undefined;
}

/** A certificate chain and its key: both set, readable, PEM, and of one pair. */
function keyPairProblems(
  cert: { variable: string; path: string },
  key: { variable: string; path: string },
  required: string,
): string[] {
  const problems: string[] = [];
  for (const file of [cert, key])
    if (file.path === '') problems.push(`${file.variable} is required: ${required}`);
  if (problems.length > 0) return problems;
  const certProblem = fileProblem(cert.variable, cert.path, (pem) => createSecureContext({ cert: pem }));
  const keyProblem = fileProblem(key.variable, key.path, (pem) => createSecureContext({ key: pem }));
  if (certProblem !== undefined) problems.push(certProblem);
  if (keyProblem !== undefined) problems.push(keyProblem);
  if (problems.length > 0) return problems;
  try {
    createSecureContext({ cert: readFileSync(cert.path), key: readFileSync(key.path) });
  } catch (error) {
    problems.push(
      `${cert.variable} and ${key.variable} do not make a pair: ${(error as Error).message} (${cert.path}, ${key.path})`,
    );
  }
  return problems;
}

const caProblem = (variable: string, path: string) =>
  fileProblem(variable, path, (pem) => {
    if (!pem.toString('utf8').includes('-----BEGIN CERTIFICATE-----'))
      throw new Error('no certificate in it');
    createSecureContext({ ca: pem });
  });

/**
 * Reads the extension settings and checks the files they name; never throws: the values (undefined
 * when a field is bad) and every problem, for readRatelimitSettings to report with its own.
 */
export function readRatelimitExtensions(
  env: Env,
  configType: string | undefined,
): { values: ExtensionValues | undefined; problems: string[] } {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, field] of Object.entries(ratelimitExtensionSpec())) {
    const outcome = (field as Field<unknown>).read(env);
    if (outcome.ok) values[name] = outcome.value;
    else problems.push(outcome.problem);
  }
  const read = values as Partial<ExtensionValues>;
  if (read.grpcServerUseTls === true) {
    problems.push(
      ...keyPairProblems(
        { variable: 'GRPC_SERVER_TLS_CERT', path: read.grpcServerTlsCert ?? '' },
        { variable: 'GRPC_SERVER_TLS_KEY', path: read.grpcServerTlsKey ?? '' },
        'GRPC_SERVER_USE_TLS=true needs the server certificate and key',
      ),
    );
    if (read.grpcClientTlsCacert)
      pushDefined(problems, caProblem('GRPC_CLIENT_TLS_CACERT', read.grpcClientTlsCacert));
    if (read.grpcClientTlsSan && !read.grpcClientTlsCacert)
      problems.push(
        'GRPC_CLIENT_TLS_SAN is set without GRPC_CLIENT_TLS_CACERT: a client SAN is checked only on verified client certificates',
      );
  }
  if (configType === 'GRPC_XDS_SOTW') {
    if (read.xdsServerUrl !== undefined && !/^[^\s,]+:\d{1,5}$/.test(read.xdsServerUrl))
      problems.push(
        `CONFIG_GRPC_XDS_SERVER_URL=${JSON.stringify(read.xdsServerUrl)} is not allowed: host:port of the xDS management server`,
      );
    if (read.xdsServerUseTls === true) {
      if (read.xdsClientTlsCert || read.xdsClientTlsKey)
        problems.push(
          ...keyPairProblems(
            { variable: 'CONFIG_GRPC_XDS_CLIENT_TLS_CERT', path: read.xdsClientTlsCert ?? '' },
            { variable: 'CONFIG_GRPC_XDS_CLIENT_TLS_KEY', path: read.xdsClientTlsKey ?? '' },
            'a client certificate needs both the certificate and the key',
          ),
        );
      if (read.xdsServerTlsCacert)
        pushDefined(problems, caProblem('CONFIG_GRPC_XDS_SERVER_TLS_CACERT', read.xdsServerTlsCacert));
    }
  }
  return { values: problems.length > 0 ? undefined : Object.freeze(read as ExtensionValues), problems };
}

function pushDefined(problems: string[], problem: string | undefined): void {
  if (problem !== undefined) problems.push(problem);
}
