// Asks one broker for its API versions over a connection of its own: the smallest request every
// Kafka answers, so "answered" means a broker process that reads and writes, not just an open port.
import { connect } from 'node:net';

export type ProbeOutcome =
  | { readonly answered: true }
  | { readonly answered: false; readonly reason: string }
  /** The timer fired late (the event loop was busy): nothing can be concluded. */
  | { readonly answered: 'unknown' };

const API_VERSIONS = 18;
/** How late a timeout may fire and still count: later, the answer may have been waiting unread. */
const MAX_TIMER_LATENESS_MS = 100;

/** ApiVersions v0 request: size, api key, version, correlation id, client id; the body is empty. */
export function apiVersionsRequest(correlationId: number, clientId: string): Buffer {
  const id = Buffer.from(clientId, 'utf8');
  const frame = Buffer.alloc(4 + 2 + 2 + 4 + 2 + id.length);
  frame.writeInt32BE(frame.length - 4, 0);
  frame.writeInt16BE(API_VERSIONS, 4);
  frame.writeInt16BE(0, 6);
  frame.writeInt32BE(correlationId, 8);
  frame.writeInt16BE(id.length, 12);
  id.copy(frame, 14);
  return frame;
}

export function probeBroker(
  hostPort: string,
  options: { readonly timeoutMs: number; readonly clientId: string; readonly correlationId: number },
): Promise<ProbeOutcome> {
  const colon = hostPort.lastIndexOf(':');
  const host = hostPort.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(hostPort.slice(colon + 1));
  return new Promise<ProbeOutcome>((resolve) => {
    const socket = connect({ host, port });
    let received = Buffer.alloc(0);
    const due = performance.now() + options.timeoutMs;
    const finish = (outcome: ProbeOutcome): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      const late = performance.now() - due > MAX_TIMER_LATENESS_MS;
      finish(
        late
          ? { answered: 'unknown' }
          : { answered: false, reason: `no answer within ${options.timeoutMs} ms` },
      );
    }, options.timeoutMs);
    socket.setNoDelay(true);
    socket.once('connect', () => socket.write(apiVersionsRequest(options.correlationId, options.clientId)));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 8 && received.readInt32BE(4) === options.correlationId)
        finish({ answered: true });
    });
    socket.once('error', (error) => finish({ answered: false, reason: error.message }));
    socket.once('close', () => finish({ answered: false, reason: 'connection closed before an answer' }));
  });
}
