import { collectDefaultMetrics, Registry } from 'prom-client';
import { type HttpListener, startHttpListener } from './http-listener.ts';
import type { Logger } from './logger.ts';

/** A registry per service, with process metrics and a `service` label on every series. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export type MetricsServer = HttpListener;

/** Serves `GET /metrics` in the Prometheus text format. */
export function startMetricsServer(options: {
  host: string;
  port: number;
  registry: Registry;
  logger: Logger;
}): Promise<MetricsServer> {
  const { registry, logger } = options;
  return startHttpListener({
    name: 'metrics server',
    host: options.host,
    port: options.port,
    handler: (req, res) => {
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
    },
  });
}
