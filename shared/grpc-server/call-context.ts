// The handler contract's context (shared/rpc/contract.ts) for a call of this folder's server, read
// from the HTTP/2 stream when a handler asks: a call whose handler reads nothing costs one object.
import { correlationIdOf, type HandlerContext } from '../rpc/contract.ts';
import type { GrpcHeaders, H2Stream } from './h2-stream.ts';

export class StreamCallContext implements HandlerContext {
  readonly path: string;
  readonly #stream: H2Stream;
  #controller: AbortController | undefined;

  constructor(path: string, stream: H2Stream) {
    this.path = path;
    this.#stream = stream;
  }

  get metadata(): GrpcHeaders {
    return this.#stream.headers;
  }

  get peer(): string {
    const { socket } = this.#stream;
    return `${socket.remoteAddress}:${socket.remotePort}`;
  }

  get deadline(): number | undefined {
    return this.#stream.deadline;
  }

  get correlationId(): string | undefined {
    return correlationIdOf(this.#stream.headers);
  }

  /** Aborted once the stream is over: answered, reset by the caller, its deadline answered, or the connection gone. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const stream = this.#stream;
      if (stream.closed) controller.abort();
      else {
        const before = stream.onClose;
        stream.onClose = () => {
          before?.();
          controller.abort();
        };
      }
    }
    return this.#controller.signal;
  }
}
