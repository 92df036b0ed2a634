// The benchmark's load generators, cheap enough that the machine's CPU goes mostly to the service:
// gRPC over node:http2 with each caller's request serialized once (by the proto's own serializer)
// and only the reply's overall_code read; /json as keep-alive HTTP/1.1, one socket per caller,
// with the request bytes written once per call and only the status line and length parsed.
import { type ClientHttp2Session, constants, connect as http2Connect } from 'node:http2';
import { type Socket, connect as tcpConnect } from 'node:net';
import { RLS_PROTO, RLS_SERVICE } from '../../services/ratelimit/adapters/grpc/rls-method.ts';
import { loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import { rawGrpcConnection } from './raw-grpc-client.ts';

/** One decision for caller `caller`; resolves when the answer is OK, rejects otherwise. */
export type Decide = (caller: number) => Promise<void>;

export interface LoadClient {
  readonly decide: Decide;
  close(): void;
}

const requestFor = (caller: number) => ({
  domain: 'bench',
  descriptors: [{ entries: [{ key: 'user', value: `caller-${caller}` }] }],
  hits_addend: 1,
});

const SHOULD_RATE_LIMIT_PATH = `/${RLS_SERVICE}/ShouldRateLimit`;

/** Each caller's request as a length-prefixed gRPC message. */
function grpcMessages(callers: number): Buffer[] {
  const method = lookupService(loadPackageDefinition([RLS_PROTO]), RLS_SERVICE).service.ShouldRateLimit!;
  return Array.from({ length: callers }, (_, caller) => {
    const message = method.requestSerialize(requestFor(caller));
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    return frame;
  });
}

/** gRPC over `channels` minimal HTTP/2 connections (raw-grpc-client.ts); caller i uses connection i mod channels. */
export function rawGrpcLoadClient(host: string, port: number, callers: number, channels: number): LoadClient {
  const connections = Array.from({ length: channels }, () =>
    rawGrpcConnection(host, port, SHOULD_RATE_LIMIT_PATH),
  );
  const prepared = grpcMessages(callers).map((message, caller) =>
    connections[caller % channels]!.prepare(message),
  );
  return {
    decide: (caller) => connections[caller % channels]!.call(prepared[caller]!),
    close: () => {
      for (const connection of connections) connection.close();
    },
  };
}

/** gRPC over `channels` node:http2 connections; caller i uses connection i mod channels. */
export function grpcLoadClient(address: string, callers: number, channels: number): LoadClient {
  const frames = grpcMessages(callers);
  const sessions: ClientHttp2Session[] = Array.from({ length: channels }, () =>
    http2Connect(`http://${address}`),
  );
  const headers = {
    [constants.HTTP2_HEADER_METHOD]: 'POST',
    [constants.HTTP2_HEADER_PATH]: SHOULD_RATE_LIMIT_PATH,
    [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
    [constants.HTTP2_HEADER_TE]: 'trailers',
  };
  return {
    decide: (caller) =>
      new Promise<void>((resolve, reject) => {
        const stream = sessions[caller % channels]!.request(headers, { endStream: false });
        let reply: Buffer | undefined;
        let status: string | undefined;
        stream.on('data', (chunk: Buffer) => {
          reply = reply === undefined ? chunk : Buffer.concat([reply, chunk]);
        });
        stream.on('trailers', (trailers) => {
          status = trailers['grpc-status'] as string | undefined;
        });
        stream.on('error', reject);
        stream.on('close', () => {
          // Field 1 (overall_code), varint 1 = OK: the first two bytes of the message.
          if (status === '0' && reply !== undefined && reply[5] === 0x08 && reply[6] === 1) resolve();
          else reject(new Error(`gRPC status ${status}, reply ${reply?.toString('hex')}`));
        });
        stream.end(frames[caller]);
      }),
    close: () => {
      for (const session of sessions) session.close();
    },
  };
}

const CRLF_CRLF = Buffer.from('\r\n\r\n');

/** /json over keep-alive HTTP/1.1, one socket per caller; the answer must be 200. */
export function jsonLoadClient(host: string, port: number, callers: number): LoadClient {
  const requests = Array.from({ length: callers }, (_, caller) => {
    const body = JSON.stringify({
      domain: 'bench',
      descriptors: [{ entries: [{ key: 'user', value: `caller-${caller}` }] }],
    });
    return Buffer.from(
      `POST /json HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
  interface Caller {
    socket: Socket;
    buffered: Buffer | undefined;
    settle: ((error?: Error) => void) | undefined;
  }
  const connections: Caller[] = requests.map(() => {
    const state: Caller = { socket: tcpConnect(port, host), buffered: undefined, settle: undefined };
    state.socket.setNoDelay(true);
    state.socket.on('data', (chunk: Buffer) => {
      const data = state.buffered === undefined ? chunk : Buffer.concat([state.buffered, chunk]);
      const end = data.indexOf(CRLF_CRLF);
      if (end < 0) {
        state.buffered = data;
        return;
      }
      const head = data.toString('latin1', 0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (data.length < end + 4 + length) {
        state.buffered = data;
        return;
      }
      state.buffered = undefined;
      const settle = state.settle;
      state.settle = undefined;
      settle?.(head.startsWith('HTTP/1.1 200 ') ? undefined : new Error(head.split('\r\n')[0]));
    });
    state.socket.on('error', (error) => state.settle?.(error));
    return state;
  });
  return {
    decide: (caller) =>
      new Promise<void>((resolve, reject) => {
        const state = connections[caller]!;
        state.settle = (error) => (error === undefined ? resolve() : reject(error));
        state.socket.write(requests[caller]!);
      }),
    close: () => {
      for (const { socket } of connections) socket.destroy();
    },
  };
}
