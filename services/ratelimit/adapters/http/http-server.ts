// The HTTP listener (PORT, default 8080): POST /json decides (200 OK, 429 OVER_LIMIT, protojson
// body; any failure 400 `Bad Request`), /healthcheck answers 200 `OK` or 500, the rest 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { causedByService, toAppError } from '../../../../shared/errors.ts';
import { type HttpListener, startHttpListener } from '../../../../shared/http-listener.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RateLimitService } from '../../service.ts';
import { fromWireRequest } from '../grpc/wire.ts';
import { listeningAt } from '../shared-port.ts';
import type { HealthState } from '../telemetry/health.ts';
import { parseJsonRequest, toJsonResponse } from './json-codec.ts';

const MAX_BODY_BYTES = 1024 * 1024;

export type RunningHttpServer = HttpListener;

export function createHttpHandler(deps: {
  service: RateLimitService;
  health: HealthState;
  logger: Logger;
}): (req: IncomingMessage, res: ServerResponse) => void {
  const { service, health, logger } = deps;

  const badRequest = (res: ServerResponse): void => {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
    res.end('Bad Request\n');
  };

  const decide = (body: string, res: ServerResponse): void => {
    let request: ReturnType<typeof fromWireRequest>;
    try {
      request = fromWireRequest(parseJsonRequest(body));
    } catch (error) {
      logger.debug({ err: error }, '/json: bad request');
      badRequest(res);
      return;
    }
    service.shouldRateLimit(request).then(
      (decision) => {
        res.writeHead(decision.overallCode === 'OVER_LIMIT' ? 429 : 200, {
          'content-type': 'application/json',
        });
        res.end(toJsonResponse(decision));
      },
      (error: unknown) => {
        // A store outage is the service's failure (warn); a request it cannot serve is the caller's.
        if (causedByService(toAppError(error))) logger.warn({ err: error }, '/json: request failed');
        else logger.info({ err: error }, '/json: request rejected');
        badRequest(res);
      },
    );
  };

  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthcheck') {
      if (health.healthy()) res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('OK');
      else res.writeHead(500).end();
      return;
    }
    if (path !== '/json') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        badRequest(res);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size <= MAX_BODY_BYTES) decide(Buffer.concat(chunks).toString('utf8'), res);
    });
  };
}

export async function startHttpServer(options: {
  host: string;
  port: number;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  name: string;
  logger: Logger;
  /** Shares the port with the instance's other decision threads (SO_REUSEPORT). */
  reusePort?: boolean;
  /** Says nothing once listening (a thread joining the listeners of the instance's first unit). */
  quiet?: boolean;
}): Promise<RunningHttpServer> {
  const listener = await startHttpListener({ ...options, keepAliveTimeoutMs: 65_000, closeGraceMs: 2_000 });
  if (!options.quiet)
    options.logger.warn(listeningAt(options.host, listener.port, 'http://'), `${options.name} listening`);
  return listener;
}
