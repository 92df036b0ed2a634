// Tracing with the OpenTelemetry SDK (TRACING_ENABLED and friends, reference 5.7): a span
// `ShouldRateLimit Execution` per decision (gRPC and /json) carrying the domain and the descriptor
// count, continuing the caller's W3C traceparent, and a child span per counter-store round trip;
// exported over OTLP (protobuf over HTTP, or gRPC) in batches. Loaded only when tracing is on:
// with it off the decision path is not wrapped at all.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { Logger } from '../../../../shared/logger.ts';
import type { UnaryHandler } from '../../../../shared/rpc/contract.ts';
import type { CounterStore } from '../../ports.ts';
import type { RateLimitService } from '../../service.ts';
import { parseKeyValueList } from '../../settings/key-value-list.ts';

export const DECISION_SPAN = 'ShouldRateLimit Execution';

export interface TracingSettings {
  readonly tracingExporterProtocol: 'http' | 'grpc';
  readonly tracingServiceName: string;
  readonly tracingServiceNamespace: string;
  readonly tracingServiceInstanceId: string;
  readonly tracingSamplingRate: number;
  readonly otlp: Readonly<Record<string, string>>;
}

export interface Tracing {
  /** The decisions of `service` as spans (children of the context the transport set). */
  traceService(service: RateLimitService, transport: 'grpc' | 'http'): RateLimitService;
  /** Each `increment` (one round trip) as a child span of the decision's. */
  traceStore<S extends CounterStore>(store: S, backend: string): CounterStore;
  /** Continues the traceparent of each gRPC call's headers. */
  traceUnary<Request, Reply>(handle: UnaryHandler<Request, Reply>): UnaryHandler<Request, Reply>;
  /** Continues the traceparent of each /json request's headers. */
  traceHttp(
    handler: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void;
  shutdown(): Promise<void>;
}

/** `k=v,k=v` (OTEL_EXPORTER_OTLP_HEADERS), values URL-decoded as the specification says; bad pairs skipped. */
function otlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of parseKeyValueList(text ?? '', '=').pairs)
    out[decodeURIComponent(key)] = decodeURIComponent(value);
  return out;
}

/** The exporter for TRACING_EXPORTER_PROTOCOL, configured from the OTEL_EXPORTER_OTLP_* variables. */
async function createExporter(settings: TracingSettings): Promise<{ exporter: SpanExporter; url: string }> {
  const env = settings.otlp;
  const timeoutMillis = Number(
    env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
  );
  const headers = {
    ...otlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
    ...otlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
  };
  if (settings.tracingExporterProtocol === 'grpc') {
    const url =
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4317';
    const insecure =
      url.startsWith('http://') ||
      (env.OTEL_EXPORTER_OTLP_TRACES_INSECURE ?? env.OTEL_EXPORTER_OTLP_INSECURE ?? '').toLowerCase() ===
        'true';
    // grpc-js (the exporter's transport) loads only with this exporter.
    const { credentials: grpcCredentials, Metadata } = await import('@grpc/grpc-js');
    const metadata = new Metadata();
    for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
    return {
      url,
      exporter: new OTLPTraceExporter({
        url,
        metadata,
        timeoutMillis,
        credentials: insecure ? grpcCredentials.createInsecure() : grpcCredentials.createSsl(),
      }),
    };
  }
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318';
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base.replace(/\/+$/, '')}/v1/traces`;
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return { url, exporter: new OTLPTraceExporter({ url, headers, timeoutMillis }) };
}

export async function startTracing(settings: TracingSettings, logger: Logger): Promise<Tracing> {
  const { exporter, url } = await createExporter(settings);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': settings.tracingServiceName,
      ...(settings.tracingServiceNamespace !== ''
        ? { 'service.namespace': settings.tracingServiceNamespace }
        : {}),
      'service.instance.id': settings.tracingServiceInstanceId || randomUUID(),
    }),
    // By trace id, as the reference's TraceIDRatioBased: 0 samples nothing, 1 everything.
    sampler: new TraceIdRatioBasedSampler(settings.tracingSamplingRate),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1_000 })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracer = provider.getTracer('ratelimit');
  logger.warn(
    {
      protocol: settings.tracingExporterProtocol,
      url,
      samplingRate: settings.tracingSamplingRate,
      service: settings.tracingServiceName,
    },
    'tracing on: spans exported over OTLP',
  );

  const inSpan = <T>(
    name: string,
    kind: SpanKind,
    attributes: Record<string, string | number>,
    parent: Context,
    work: () => Promise<T>,
  ): Promise<T> => {
    const span = tracer.startSpan(name, { kind, attributes }, parent);
    return context.with(trace.setSpan(parent, span), work).then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        span.end();
        throw error;
      },
    );
  };

  return {
    traceService(service, transport) {
      return {
        shouldRateLimit: (request) =>
          inSpan(
            DECISION_SPAN,
            SpanKind.SERVER,
            {
              domain: request.domain,
              request_descriptors_count: request.descriptors.length,
              'rpc.system': transport === 'grpc' ? 'grpc' : 'http',
            },
            context.active(),
            () => service.shouldRateLimit(request),
          ),
      };
    },
    traceStore(store, backend) {
      return {
        increment: (items) =>
          inSpan(
            `${backend} round trip`,
            SpanKind.CLIENT,
            { 'db.system': backend, counters: items.length },
            context.active(),
            () => store.increment(items),
          ),
        ...(store.take === undefined
          ? {}
          : {
              take: (operations: Parameters<NonNullable<CounterStore['take']>>[0]) =>
                inSpan(
                  `${backend} round trip`,
                  SpanKind.CLIENT,
                  { 'db.system': backend, limits: operations.length },
                  context.active(),
                  () => store.take!(operations),
                ),
            }),
        healthy: () => store.healthy(),
        close: () => store.close(),
      };
    },
    traceUnary(handle) {
      return (request, call) =>
        context.with(propagation.extract(ROOT_CONTEXT, call.metadata), () => handle(request, call));
    },
    traceHttp(handler) {
      return (req, res) => {
        if (!(req.url ?? '').startsWith('/json')) {
          handler(req, res);
          return;
        }
        const parent = propagation.extract(ROOT_CONTEXT, req.headers);
        // The body's events run in the request's context, not the socket's.
        context.bind(parent, req);
        context.with(parent, () => handler(req, res));
      };
    },
    async shutdown() {
      await provider
        .shutdown()
        .catch((error: unknown) => logger.warn({ err: error }, 'tracing shutdown failed'));
      contextManager.disable();
    },
  };
}

/** The tracing of the settings: undefined (nothing loaded, nothing wrapped) unless TRACING_ENABLED. */
export async function tracingFromSettings(
  settings: TracingSettings & { readonly tracingEnabled: boolean },
  logger: Logger,
  onStop: (name: string, stop: () => Promise<void>) => void,
): Promise<Tracing | undefined> {
  if (!settings.tracingEnabled) return undefined;
  const tracing = await startTracing(settings, logger);
  onStop('tracing', () => tracing.shutdown());
  return tracing;
}
