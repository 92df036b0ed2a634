import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unavailable } from './errors.ts';
import { createServer } from './node-http.ts';

export interface HttpListener {
  readonly port: number;
  readonly server: Server;
  /** Stops accepting, closes idle connections, and cuts the rest after the grace period. */
  stop(): Promise<void>;
}

export interface HttpListenerOptions {
  /** Names the listener in the error when it cannot bind. */
  readonly name: string;
  readonly host: string;
  /** 0 picks a free port; the bound one is in the result. */
  readonly port: number;
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  readonly keepAliveTimeoutMs?: number;
  /** How long open requests (live streams, slow bodies) may go on after stop(); 0 cuts them at once. */
  readonly closeGraceMs?: number;
  /** SO_REUSEPORT (Linux): listeners of several threads on one port, the kernel spreading connections. */
  readonly reusePort?: boolean;
}

/** Starts a node:http server; rejects with UNAVAILABLE naming the listener when it cannot bind. */
export async function startHttpListener(options: HttpListenerOptions): Promise<HttpListener> {
  const server: Server = createServer(
    options.keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeout: options.keepAliveTimeoutMs },
    options.handler,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        unavailable(
          `${options.name}: cannot listen on ${options.host}:${options.port}: ${error.message}`,
          error,
        ),
      ),
    );
    server.listen({ port: options.port, host: options.host, reusePort: options.reusePort ?? false }, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const graceMs = options.closeGraceMs ?? 0;
  let stopping: Promise<void> | undefined;
  return {
    port,
    server,
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        if (graceMs === 0) server.closeAllConnections();
        else setTimeout(() => server.closeAllConnections(), graceMs).unref();
      });
      return stopping;
    },
  };
}
