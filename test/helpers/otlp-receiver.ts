// An OTLP trace receiver for the tests: protobuf over HTTP (POST /v1/traces) and gRPC
// (opentelemetry.proto.collector.trace.v1.TraceService/Export) on free ports, decoding the OTLP
// protobuf (test/fixtures/proto/opentelemetry) and keeping every span it got.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Server, ServerCredentials, type ServiceDefinition } from '@grpc/grpc-js';
import protobuf from 'protobufjs';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'proto');

export interface ReceivedSpan {
  readonly protocol: 'http' | 'grpc';
  readonly service: string;
  readonly resource: Record<string, unknown>;
  readonly name: string;
  readonly kind: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly attributes: Record<string, unknown>;
  readonly status: string;
}

export interface OtlpReceiver {
  readonly httpEndpoint: string;
  readonly grpcEndpoint: string;
  readonly spans: ReceivedSpan[];
  /** Export requests received, by protocol. */
  readonly exports: { http: number; grpc: number };
  stop(): Promise<void>;
}

interface KeyValue {
  key: string;
  value?: Record<string, unknown>;
}

const anyValue = (value: Record<string, unknown> | undefined): unknown => {
  if (value === undefined) return undefined;
  for (const field of ['string_value', 'bool_value', 'int_value', 'double_value'])
    if (value[field] !== undefined) return field === 'int_value' ? Number(value[field]) : value[field];
  return value;
};
const attributesOf = (list: KeyValue[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));
const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('hex');

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.resolve(FIXTURES, target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: true });
  const requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  const responseType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
  const spans: ReceivedSpan[] = [];
  const exports = { http: 0, grpc: 0 };

  const collect = (body: Uint8Array, protocol: 'http' | 'grpc'): void => {
    exports[protocol]++;
    const request = requestType.toObject(requestType.decode(body), {
      enums: String,
      longs: String,
      bytes: Array,
      defaults: true,
      arrays: true,
    }) as {
      resource_spans: Array<{
        resource?: { attributes?: KeyValue[] };
        scope_spans: Array<{
          spans: Array<{
            name: string;
            kind: string;
            trace_id: number[];
            span_id: number[];
            parent_span_id: number[];
            attributes: KeyValue[];
            status?: { code: string };
          }>;
        }>;
      }>;
    };
    for (const resourceSpans of request.resource_spans) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scope_spans)
        for (const span of scope.spans)
          spans.push({
            protocol,
            service: String(resource['service.name'] ?? ''),
            resource,
            name: span.name,
            kind: span.kind,
            traceId: hex(Uint8Array.from(span.trace_id)),
            spanId: hex(Uint8Array.from(span.span_id)),
            parentSpanId: hex(Uint8Array.from(span.parent_span_id)),
            attributes: attributesOf(span.attributes),
            status: span.status?.code ?? 'STATUS_CODE_UNSET',
          });
    }
  };

  const http: HttpServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (req.headers['content-type'] !== 'application/x-protobuf') {
        res.writeHead(415).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      collect(body, 'http');
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end(Buffer.from(responseType.encode(responseType.create({})).finish()));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));

  const grpc = new Server();
  const definition: ServiceDefinition = {
    Export: {
      path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
      requestStream: false,
      responseStream: false,
      requestDeserialize: (buffer: Buffer) => buffer,
      requestSerialize: (value: Buffer) => value,
      responseSerialize: () => Buffer.from(responseType.encode(responseType.create({})).finish()),
      responseDeserialize: (buffer: Buffer) => buffer,
    },
  };
  grpc.addService(definition, {
    Export: (call: { request: Buffer }, callback: (error: null, value: object) => void) => {
      collect(call.request, 'grpc');
      callback(null, {});
    },
  });
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );

  return {
    httpEndpoint: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    grpcEndpoint: `http://127.0.0.1:${grpcPort}`,
    spans,
    exports,
    async stop() {
      grpc.forceShutdown();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
