// Listening for one decision unit of several in a process: each thread has a listener of its own on
// the instance's port (SO_REUSEPORT, Linux), and the kernel spreads new connections over them.
import { createServer, type Server, type Socket } from 'node:net';
import { unavailable } from '../../../shared/errors.ts';

/**
 * Fails, naming the listener, when something listens on host:port now. A listener with
 * SO_REUSEPORT would otherwise be joined without a word (another instance started by the same
 * user), so the first unit of an instance checks with a plain bind before it binds to share.
 */
export async function ensurePortFree(name: string, host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = await listenTcp({ name, host, port, reusePort: false, onConnection: (s) => s.destroy() });
  await new Promise((resolve) => probe.close(resolve));
}

/** A TCP listener handing each connection to `onConnection`; rejects with UNAVAILABLE naming it. */
export function listenTcp(options: {
  name: string;
  host: string;
  port: number;
  reusePort: boolean;
  onConnection: (socket: Socket) => void;
}): Promise<Server> {
  const server = createServer(options.onConnection);
  return new Promise((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        unavailable(
          `${options.name}: cannot listen on ${options.host}:${options.port}: ${error.message}`,
          error,
        ),
      ),
    );
    server.listen({ port: options.port, host: options.host, reusePort: options.reusePort }, () =>
      resolve(server),
    );
  });
}

/**
 * How a log line names a listener so that it can be opened: a wildcard host (0.0.0.0, ::) is
 * shown as 127.0.0.1, with `interfaces: 'all'` beside it.
 */
export function listeningAt(
  host: string,
  port: number,
  scheme = '',
): { address: string; interfaces?: 'all' } {
  const all = host === '0.0.0.0' || host === '::' || host === '';
  const shown = all ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const address = `${scheme}${shown}:${port}${scheme === '' ? '' : '/'}`;
  return all ? { address, interfaces: 'all' } : { address };
}
