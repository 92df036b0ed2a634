// Tracing (TRACING_ENABLED) against a real OTLP receiver over both protocols (protobuf over HTTP
// and gRPC, decoded by test/helpers/otlp-receiver.ts): a `ShouldRateLimit Execution` span per
// decision (gRPC and /json) continuing the caller's traceparent, with the domain and descriptor
// count, and a child span per counter-store round trip; TRACING_SAMPLING_RATE=0 exports nothing.
import { randomBytes } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { WireResponse } from '../../services/ratelimit/adapters/grpc/wire.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { createRuntimeFolder, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import { descriptors, type RatelimitServer, startRatelimitServer } from '../helpers/ratelimit-server.ts';
import { createRlsClient } from '../helpers/rls-client.ts';
import { waitFor } from '../helpers/wait-for.ts';

const CONFIG = `domain: traced
descriptors:
  - key: user
    rate_limit:
      unit: hour
      requests_per_unit: 1000000
  - key: path
    rate_limit:
      unit: hour
      requests_per_unit: 1000000
`;
const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

/** A gRPC decision sent with a W3C traceparent. */
async function grpcDecision(server: RatelimitServer, traceparent: string): Promise<WireResponse> {
  const client = createRlsClient(server.grpcAddress, { timeoutMs: 5_000 });
  const metadata = new Metadata();
  metadata.set('traceparent', traceparent);
  try {
    return await client.shouldRateLimit(
      { domain: 'traced', descriptors: descriptors({ user: hex(4) }, { path: '/a' }) as never },
      metadata,
    );
  } finally {
    client.close();
  }
}

async function jsonDecision(server: RatelimitServer, traceparent: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${server.httpPort}/json`, {
    method: 'POST',
    headers: { traceparent },
    body: JSON.stringify({
      domain: 'traced',
      descriptors: [{ entries: [{ key: 'user', value: hex(4) }] }],
    }),
  });
  await res.text();
  return res.status;
}

describe('tracing over OTLP', () => {
  const infra = inject('infra');
  let receiver: OtlpReceiver;
  let runtime: RuntimeFolder;
  const servers: RatelimitServer[] = [];
  const start = async (settings: Record<string, string>): Promise<RatelimitServer> => {
    const server = await startRatelimitServer({
      REDIS_URL: infra.REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      TRACING_ENABLED: 'true',
      ...settings,
    });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    runtime = await createRuntimeFolder({ 'traced.yaml': CONFIG });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await receiver?.stop();
    await runtime?.cleanup();
  });

  /** The decision span of the trace, once it and its round-trip child arrived. */
  const decisionOf = (traceId: string): Promise<{ decision: ReceivedSpan; children: ReceivedSpan[] }> =>
    waitFor(
      `the spans of trace ${traceId}`,
      () => {
        const decision = receiver.spans.find(
          (s) => s.traceId === traceId && s.name === 'ShouldRateLimit Execution',
        );
        const children = receiver.spans.filter(
          (s) => s.traceId === traceId && s.parentSpanId === decision?.spanId,
        );
        return decision !== undefined && children.length > 0 && { decision, children };
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );

  for (const protocol of ['http', 'grpc'] as const) {
    it(`exports a span per decision and per store round trip over OTLP/${protocol}, continuing the caller's trace`, async () => {
      const service = `rl-${protocol}-${hex(3)}`;
      const server = await start({
        TRACING_EXPORTER_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_ENDPOINT: protocol === 'http' ? receiver.httpEndpoint : receiver.grpcEndpoint,
        TRACING_SERVICE_NAME: service,
        TRACING_SERVICE_NAMESPACE: 'edge',
        TRACING_SERVICE_INSTANCE_ID: `instance-${protocol}`,
      });

      const [grpcTrace, grpcParent] = [hex(16), hex(8)];
      expect((await grpcDecision(server, `00-${grpcTrace}-${grpcParent}-01`)).overall_code).toBe('OK');
      const viaGrpc = await decisionOf(grpcTrace);
      expect(viaGrpc.decision).toMatchObject({
        protocol,
        service,
        kind: 'SPAN_KIND_SERVER',
        parentSpanId: grpcParent,
        attributes: { domain: 'traced', request_descriptors_count: 2, 'rpc.system': 'grpc' },
        resource: {
          'service.name': service,
          'service.namespace': 'edge',
          'service.instance.id': `instance-${protocol}`,
        },
      });
      expect(viaGrpc.children).toHaveLength(1);
      expect(viaGrpc.children[0]).toMatchObject({
        name: 'redis round trip',
        kind: 'SPAN_KIND_CLIENT',
        attributes: { 'db.system': 'redis', counters: 2 },
      });

      const [jsonTrace, jsonParent] = [hex(16), hex(8)];
      expect(await jsonDecision(server, `00-${jsonTrace}-${jsonParent}-01`)).toBe(200);
      const viaJson = await decisionOf(jsonTrace);
      expect(viaJson.decision).toMatchObject({
        parentSpanId: jsonParent,
        attributes: { domain: 'traced', request_descriptors_count: 1, 'rpc.system': 'http' },
      });
      expect(viaJson.children.map((s) => s.name)).toEqual(['redis round trip']);

      // Without a caller's trace the decision span is a root.
      await grpcDecision(server, 'not-a-traceparent');
      await waitFor('a root decision span', () =>
        receiver.spans.find(
          (s) => s.service === service && s.name === 'ShouldRateLimit Execution' && s.parentSpanId === '',
        ),
      );
      expect(receiver.exports[protocol]).toBeGreaterThan(0);
    });
  }

  it('exports nothing with TRACING_SAMPLING_RATE=0', async () => {
    const service = `rl-unsampled-${hex(3)}`;
    const server = await start({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.httpEndpoint,
      TRACING_SERVICE_NAME: service,
      TRACING_SAMPLING_RATE: '0',
    });
    for (let i = 0; i < 5; i++) {
      expect((await grpcDecision(server, `00-${hex(16)}-${hex(8)}-01`)).overall_code).toBe('OK');
      expect(await jsonDecision(server, `00-${hex(16)}-${hex(8)}-01`)).toBe(200);
    }
    expect(await server.stat('ratelimit_server.ShouldRateLimit.total_requests')).toBe(5);
    // Exit code 0: every stop step finished, tracing's included, which exports what the batch
    // holds and waits for the receiver's answer (it records spans before it answers). So any span
    // of these ten decisions has arrived by now.
    expect(await server.stop()).toBe(0);
    expect(receiver.spans.filter((s) => s.service === service)).toEqual([]);
  });
});
