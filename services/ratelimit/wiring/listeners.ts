// The listeners: a decision unit's HTTP (/json, /healthcheck) and gRPC (RLS, grpc.health.v1) ones,
// traced when tracing is on, and the instance's debug listener.
import type { Registry } from 'prom-client';
import {
  type HealthService,
  loadPackageDefinition,
  lookupService,
  startGrpcServer,
} from '../../../shared/grpc.ts';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createRateLimitHandlers, RLS_PROTO, RLS_SERVICE } from '../adapters/grpc/grpc-handlers.ts';
import { grpcServerCredentials } from '../adapters/grpc/tls-credentials.ts';
import { createDebugHandler } from '../adapters/http/debug-server.ts';
import { createHttpHandler, startHttpServer } from '../adapters/http/http-server.ts';
import type { CallTimer } from '../adapters/telemetry/call-stats.ts';
import type { HealthState } from '../adapters/telemetry/health.ts';
import type { Tracing } from '../adapters/telemetry/tracing.ts';
import type { RateLimitConfig } from '../config/index.ts';
import type { RateLimitService } from '../service.ts';
import type { RatelimitSettings } from '../settings/index.ts';

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
}): Promise<{ grpcPort: number; httpPort: number }> {
  const { settings, logger, lifecycle, service, health, grpcHealth, timer, tracing } = options;
  const http = await startHttpServer({
    host: settings.host,
    port: settings.port,
    name: 'HTTP server',
    handler: tracing
      ? tracing.traceHttp(
          createHttpHandler({ service: tracing.traceService(service, 'http'), health, logger }),
        )
      : createHttpHandler({ service, health, logger }),
    logger,
  });
  lifecycle.onStop('HTTP server', () => http.stop());

  const rls = lookupService(loadPackageDefinition([RLS_PROTO]), RLS_SERVICE);
  const grpc = await startGrpcServer({
    host: settings.grpcHost,
    port: settings.grpcPort,
    logger,
    channelOptions: {
      'grpc.max_connection_age_ms': settings.grpcMaxConnectionAgeMs,
      'grpc.max_connection_age_grace_ms': settings.grpcMaxConnectionAgeGraceMs,
      // Channelz's per-call bookkeeping (timestamps, counters) costs ~10-20 µs of CPU a call; nothing reads it.
      'grpc.enable_channelz': 0,
    },
    credentials: grpcServerCredentials(settings, logger, (name, stop) => lifecycle.onStop(name, stop)),
    services: [
      {
        definition: rls.service,
        implementation: tracing
          ? tracing.traceGrpc(
              createRateLimitHandlers({ service: tracing.traceService(service, 'grpc'), timer, logger }),
            )
          : createRateLimitHandlers({ service, timer, logger }),
      },
      grpcHealth,
    ],
  });
  grpcHealth.setStatus('', 'SERVING');
  logger.warn({ address: `${settings.grpcHost}:${grpc.port}` }, 'gRPC server listening');
  lifecycle.onStop('gRPC server', async () => {
    grpcHealth.shutdown();
    await grpc.stop(settings.shutdownDeadlineMs / 2);
  });
  // Registered last, so it runs first: probes fail before the listeners close.
  lifecycle.onStop('health', () => health.set('sigterm', false));
  return { grpcPort: grpc.port, httpPort: http.port };
}

/** The debug listener (DEBUG_PORT) of the instance: /rlconfig, /stats, /metrics, profiles. */
export async function startDebugListener(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
  config: () => RateLimitConfig | undefined;
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
      stats: options.stats,
      registry: options.registry,
      logger,
    }),
    logger,
  });
  options.lifecycle.onStop('debug server', () => debug.stop());
}
