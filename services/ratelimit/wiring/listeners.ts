// The listeners: a decision unit's HTTP (/json, /healthcheck) and gRPC (RLS, grpc.health.v1) ones,
// traced when tracing is on, and the instance's debug listener.
import type { Registry } from 'prom-client';
import { startGrpcServer } from '../../../shared/grpc-server/grpc-server.ts';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { HealthService } from '../../../shared/rpc/health.ts';
import { createRlsService } from '../adapters/grpc/rls-method.ts';
import { grpcServerTls } from '../adapters/grpc/tls-credentials.ts';
import { createDebugHandler } from '../adapters/http/debug-server.ts';
import { createHttpHandler, startHttpServer } from '../adapters/http/http-server.ts';
import { ensurePortFree, listeningAt } from '../adapters/shared-port.ts';
import type { CallTimer } from '../adapters/telemetry/call-stats.ts';
import type { HealthState } from '../adapters/telemetry/health.ts';
import type { Tracing } from '../adapters/telemetry/tracing.ts';
import type { RateLimitConfig } from '../config/index.ts';
import type { CountersPage } from '../counters-view.ts';
import type { RateLimitService } from '../service.ts';
import type { RatelimitSettings } from '../settings/index.ts';

/** The largest request message the gRPC listener takes (as grpc-js was configured before: 64 MiB). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Where a decision unit listens: the settings' ports alone, or the instance's ports shared with its other threads. */
export interface UnitPorts {
  readonly httpPort: number;
  readonly grpcPort: number;
  /** SO_REUSEPORT: the first unit of an instance checks that nothing else holds the ports first. */
  readonly shared: 'alone' | 'first' | 'joining';
}

/** Opens the HTTP and gRPC listeners of one decision unit; health turns false first on stop. */
export async function openDecisionListeners(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
  service: RateLimitService;
  health: HealthState;
  grpcHealth: HealthService;
  timer: CallTimer;
  tracing: Tracing | undefined;
  ports: UnitPorts;
}): Promise<{ grpcPort: number; httpPort: number }> {
  const { settings, logger, lifecycle, service, health, grpcHealth, timer, tracing, ports } = options;
  const reusePort = ports.shared !== 'alone';
  if (ports.shared === 'first') {
    await ensurePortFree('HTTP server', settings.host, ports.httpPort);
    await ensurePortFree('gRPC server', settings.grpcHost, ports.grpcPort);
  }
  const http = await startHttpServer({
    host: settings.host,
    port: ports.httpPort,
    reusePort,
    quiet: ports.shared === 'joining',
    name: 'HTTP server',
    handler: tracing
      ? tracing.traceHttp(
          createHttpHandler({ service: tracing.traceService(service, 'http'), health, logger }),
        )
      : createHttpHandler({ service, health, logger }),
    logger,
  });
  lifecycle.onStop('HTTP server', () => http.stop());

  const tls = grpcServerTls(settings, logger, (name, stop) => lifecycle.onStop(name, stop));
  const rls = createRlsService({
    service: tracing ? tracing.traceService(service, 'grpc') : service,
    timer,
    ...(tracing ? { wrap: (handle) => tracing.traceUnary(handle) } : {}),
  });
  const grpc = await startGrpcServer({
    host: settings.grpcHost,
    port: ports.grpcPort,
    reusePort,
    services: [rls, grpcHealth.rpc],
    ...(tls?.admit ? { admit: tls.admit } : {}),
    maxMessageBytes: MAX_MESSAGE_BYTES,
    maxConnectionAgeMs: settings.grpcMaxConnectionAgeMs,
    maxConnectionAgeGraceMs: settings.grpcMaxConnectionAgeGraceMs,
    tls: tls?.options,
    logger,
  });
  tls?.attach(grpc.setSecureContext);
  grpcHealth.setStatus('', 'SERVING');
  if (ports.shared !== 'joining')
    logger.warn(listeningAt(settings.grpcHost, grpc.port), 'gRPC server listening');
  lifecycle.onStop('gRPC server', async () => {
    grpcHealth.shutdown();
    await grpc.stop(settings.shutdownDeadlineMs / 2);
  });
  // Registered last, so it runs first: probes fail before the listeners close.
  lifecycle.onStop('health', () => health.set('sigterm', false));
  return { grpcPort: grpc.port, httpPort: http.port };
}

/** The debug listener (DEBUG_PORT) of the instance: /rlconfig, /stats, /metrics, /counters, profiles. */
export async function startDebugListener(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
  config: () => RateLimitConfig | undefined;
  counters: (query: URLSearchParams) => Promise<CountersPage>;
  stats: () => Promise<Iterable<[string, number]>>;
  registry: Pick<Registry, 'metrics' | 'contentType'>;
}): Promise<void> {
  const { settings, logger } = options;
  const debug = await startHttpServer({
    host: settings.debugHost,
    port: settings.debugPort,
    name: 'debug server',
    handler: createDebugHandler({
      config: options.config,
      counters: options.counters,
      stats: options.stats,
      registry: options.registry,
      logger,
    }),
    logger,
  });
  options.lifecycle.onStop('debug server', () => debug.stop());
}
