// The one handler contract of every RPC the services answer: a handler is
// `(request, context) => Promise<reply>`; each transport (the gRPC server of shared/grpc-server,
// the HTTP/JSON gateway) decodes the request, builds the context, runs the handler and encodes the
// reply or the failure (shared/rpc/failure.ts) at its edge. No handler sees a transport's call object.

/** What a handler knows of its call besides the request. */
export interface HandlerContext {
  /** `/package.Service/Method`. */
  readonly path: string;
  /** The request's headers (gRPC metadata) by lower-case name; `-bin` values as sent (base64). */
  readonly metadata: Readonly<Record<string, string | undefined>>;
  /** `address:port` of the caller. */
  readonly peer: string;
  /** When the caller gives up (epoch ms); undefined when it set no deadline. */
  readonly deadline: number | undefined;
  /** Aborted when the caller goes away or the deadline passes: long handlers may stop early. */
  readonly signal: AbortSignal;
  /** The caller's `x-correlation-id`, carried onto the events the call publishes. */
  readonly correlationId: string | undefined;
}

export type UnaryHandler<Request, Reply> = (request: Request, context: HandlerContext) => Promise<Reply>;

/**
 * A server-streaming handler: sends replies until it returns, or until the caller goes away
 * (`context.signal`), whichever comes first.
 */
export type StreamHandler<Request, Reply> = (
  request: Request,
  context: HandlerContext,
  send: (reply: Reply) => void,
) => Promise<void>;

/** How a method's messages cross the wire. */
export interface MethodCodec<Request, Reply> {
  /** The request's message bytes to what the handler takes; throws on bytes it cannot read. */
  readonly decode: (bytes: Buffer) => Request;
  /**
   * The reply's message bytes behind `reserve` free leading bytes (the transport's framing goes
   * there, so a reply is written once).
   */
  readonly encode: (reply: Reply, reserve: number) => Buffer;
}

export interface UnaryMethod<Request = never, Reply = never> extends MethodCodec<Request, Reply> {
  readonly path: string;
  readonly handle: UnaryHandler<Request, Reply>;
}

export interface StreamMethod<Request = never, Reply = never> extends MethodCodec<Request, Reply> {
  readonly path: string;
  readonly handle: StreamHandler<Request, Reply>;
}

/** A service as every transport serves it: its methods by path. */
export interface RpcService {
  /** `package.Service`. */
  readonly name: string;
  // biome-ignore lint/suspicious/noExplicitAny: a table of methods of every request and reply type
  readonly unary: readonly UnaryMethod<any, any>[];
  // biome-ignore lint/suspicious/noExplicitAny: as above
  readonly streaming: readonly StreamMethod<any, any>[];
}

/** The `-bin`-less text value of a header, or undefined for an empty one. */
export function correlationIdOf(metadata: Readonly<Record<string, string | undefined>>): string | undefined {
  const value = metadata['x-correlation-id'];
  return value === undefined || value === '' ? undefined : value;
}

/** The reply's bytes copied behind `reserve` free bytes: for encoders that cannot write in place. */
export function behind(bytes: Uint8Array, reserve: number): Buffer {
  const out = Buffer.allocUnsafe(bytes.length + reserve);
  out.set(bytes, reserve);
  return out;
}
