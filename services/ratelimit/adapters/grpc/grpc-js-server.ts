// The RLS gRPC listener on grpc-js: a TCP listener of this thread (sharing the port with the other
// decision threads) hands its connections to grpc-js (a connection injector), which speaks HTTP/2,
// TLS when asked, and the services.
import type { AddressInfo } from 'node:net';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { DEFAULT_MAX_MESSAGE_BYTES, type GrpcServiceRegistration } from '../../../../shared/grpc.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { listenTcp } from '../shared-port.ts';

export interface RunningRlsServer {
  readonly port: number;
  /** Stops taking connections, lets calls under way finish, cancels what is left after `deadlineMs`. */
  stop(deadlineMs: number): Promise<void>;
}

export async function startGrpcJsServer(options: {
  host: string;
  port: number;
  reusePort: boolean;
  services: readonly GrpcServiceRegistration[];
  credentials: ServerCredentials | undefined;
  channelOptions: Readonly<Record<string, string | number>>;
  logger: Logger;
}): Promise<RunningRlsServer> {
  const { logger } = options;
  const server = new Server({
    ...options.channelOptions,
    'grpc.max_receive_message_length': DEFAULT_MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': DEFAULT_MAX_MESSAGE_BYTES,
  });
  for (const service of options.services) server.addService(service.definition, service.implementation);
  const injector = server.createConnectionInjector(options.credentials ?? ServerCredentials.createInsecure());
  const listener = await listenTcp({
    name: 'gRPC server',
    host: options.host,
    port: options.port,
    reusePort: options.reusePort,
    onConnection: (socket) => injector.injectConnection(socket),
  });
  const port = (listener.address() as AddressInfo).port;

  let stopping: Promise<void> | undefined;
  return {
    port,
    stop: (deadlineMs) => {
      stopping ??= new Promise<void>((resolve) => {
        listener.close();
        const timer = setTimeout(() => {
          logger.warn({ port, deadlineMs }, 'gRPC server did not drain in time; cancelling open calls');
          server.forceShutdown();
          resolve();
        }, deadlineMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      return stopping;
    },
  };
}
