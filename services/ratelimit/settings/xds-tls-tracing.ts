// The TLS, xDS and tracing settings (reference 1.2, 5.7), read apart from the others so that a bad
// certificate file is reported beside every other bad setting, not instead of them.
import {
  bool,
  documented,
  type Env,
  type Field,
  int,
  num,
  oneOf,
  type SettingsOf,
  str,
} from '../../../shared/settings.ts';
import { caProblems, keyPairProblems } from './certificate-files.ts';
import { duration, keyValuePairs } from './fields.ts';

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

const declarations = {
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
  xdsNodeMetadata: keyValuePairs('CONFIG_GRPC_XDS_NODE_METADATA', '='),
  xdsServerUrl: str(
    'CONFIG_GRPC_XDS_SERVER_URL',
    'localhost:18000',
    'host:port of the xDS management server',
  ),
  xdsServerConnectRetryIntervalMs: duration('CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL', '3s'),
  xdsClientAdditionalHeaders: keyValuePairs('CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS', ':'),
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
};

/** What each setting means (docs/settings/ratelimit.md, `npm run docs:settings`). */
export const xdsTlsTracingSpec = documented(declarations, {
  grpcServerUseTls:
    'TLS on the gRPC listener: certificate chain and key files (PEM), re-read within a second of a change (no restart; a pair that does not load keeps the previous one)',
  grpcServerTlsCert: 'the certificate chain of `GRPC_SERVER_USE_TLS`',
  grpcServerTlsKey: 'its key',
  grpcClientTlsCacert: 'set: clients must present a certificate this CA signed (handshake refused otherwise)',
  grpcClientTlsSan:
    'set: client certificates must carry this DNS SAN (calls refused with `UNAUTHENTICATED` otherwise)',
  xdsNodeId: 'the node sent to the ADS server',
  xdsNodeMetadata: "the node's metadata, `k=v,k=v`",
  xdsServerUrl: 'the ADS server (`CONFIG_TYPE=GRPC_XDS_SOTW`)',
  xdsServerConnectRetryIntervalMs: 'until the server first answers, retry the stream after this (±50%)',
  xdsClientAdditionalHeaders: '`k1:v1,k2:v2` sent as gRPC metadata on the stream',
  xdsServerUseTls: 'TLS to the ADS server (system roots without a CA file)',
  xdsClientTlsCert: 'a client certificate towards the ADS server',
  xdsClientTlsKey: 'its key',
  xdsServerTlsCacert: "the CA of the ADS server's certificate",
  xdsServerTlsSan: "the name checked on the server certificate instead of the URL's host",
  xdsBackoffInitialMs:
    "after the server first answered, retry after `initial·factor^n` (jittered, within `[initial, max]`; with the reference's factor 0.5 that is `initial` every time), `n` reset by every response",
  xdsBackoffMaxMs: 'the longest of those waits',
  xdsBackoffRandomFactor: 'the factor',
  xdsBackoffJitter: 'jitter the waits',
  xdsMaxMsgSizeBytes: "largest response accepted (`0`: gRPC's 4 MiB)",
  tracingEnabled: 'OTLP spans, one per decision and one per counter-store call',
  tracingExporterProtocol: '`http` (protobuf over HTTP) or `grpc`',
  tracingServiceName: 'resource attribute `service.name`',
  tracingServiceNamespace: 'resource attribute `service.namespace`',
  tracingServiceInstanceId: 'resource attribute `service.instance.id` (empty: a random UUID v4)',
  tracingSamplingRate: "`0`…`1`, by trace id (the caller's sampled flag does not override it)",
  otlp: 'the standard OTLP exporter variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `_TRACES_ENDPOINT`, `_HEADERS`, `_TRACES_HEADERS`, `_TIMEOUT`, `_INSECURE`); the endpoint defaults to `http://localhost:4318` (`http`) or `http://localhost:4317` (`grpc`); `http` appends `/v1/traces` to `OTEL_EXPORTER_OTLP_ENDPOINT`',
});

export type XdsTlsTracingSettings = SettingsOf<typeof xdsTlsTracingSpec>;

/**
 * Reads these settings and checks the files they name; never throws: the values (undefined when
 * one is bad) and every problem, for readRatelimitSettings to report with its own.
 */
export function readXdsTlsTracingSettings(
  env: Env,
  configType: string | undefined,
): { values: XdsTlsTracingSettings | undefined; problems: string[] } {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, field] of Object.entries(xdsTlsTracingSpec)) {
    const outcome = (field as Field<unknown>).read(env);
    if (outcome.ok) values[name] = outcome.value;
    else problems.push(outcome.problem);
  }
  const read = values as Partial<XdsTlsTracingSettings>;
  if (read.grpcServerUseTls === true) {
    problems.push(
      ...keyPairProblems(
        { variable: 'GRPC_SERVER_TLS_CERT', path: read.grpcServerTlsCert ?? '' },
        { variable: 'GRPC_SERVER_TLS_KEY', path: read.grpcServerTlsKey ?? '' },
        'GRPC_SERVER_USE_TLS=true needs the server certificate and key',
      ),
    );
    if (read.grpcClientTlsCacert)
      problems.push(...caProblems('GRPC_CLIENT_TLS_CACERT', read.grpcClientTlsCacert));
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
        problems.push(...caProblems('CONFIG_GRPC_XDS_SERVER_TLS_CACERT', read.xdsServerTlsCacert));
    }
  }
  return { values: problems.length > 0 ? undefined : Object.freeze(read as XdsTlsTracingSettings), problems };
}
