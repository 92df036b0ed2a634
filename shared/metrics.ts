import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { unavailable } from './errors.ts';
import type { Logger } from './logger.ts';
import { createServer } from './node-http.ts';

/** A registry per service, with process metrics and a `service` label on every series. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export interface MetricsServer {
  readonly port: number;
  stop(): Promise<void>;
}

/** Serves `GET /metrics` in the Prometheus text format. */
export async function startMetricsServer(options: {
  host: string;
  port: number;
  registry: Registry;
  logger: Logger;
}): Promise<MetricsServer> {
  const { registry, logger } = options;
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      (error: unknown) => {
        logger.error({ err: error }, 'collecting metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('collecting metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        unavailable(
          `metrics server: cannot listen on ${options.host}:${options.port}: ${error.message}`,
          error,
        ),
      ),
    );
    server.listen(options.port, options.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
