// An RpcService from a service of the .proto files (proto-loader's definition: each method's path
// and its protobufjs codecs) and a table of handlers by method name.
import type { ServiceDefinition } from '@grpc/grpc-js';
import {
  behind,
  type RpcService,
  type StreamHandler,
  type StreamMethod,
  type UnaryHandler,
  type UnaryMethod,
} from './contract.ts';

// biome-ignore lint/suspicious/noExplicitAny: handlers of every request and reply type
type AnyUnary = UnaryHandler<any, any>;
// biome-ignore lint/suspicious/noExplicitAny: as above
type AnyStream = StreamHandler<any, any>;

/**
 * The service's methods that `handlers` implements, each decoded and encoded by the definition's
 * own (de)serializers. A method of the definition without a handler is not served (UNIMPLEMENTED);
 * a handler without a method, or of the wrong kind, is a programming error and throws.
 */
export function protoService<
  Unary extends { readonly [name in keyof Unary]: AnyUnary },
  Streaming extends { readonly [name in keyof Streaming]: AnyStream },
>(
  definition: ServiceDefinition,
  handlers: { readonly unary?: Unary; readonly streaming?: Streaming },
): RpcService {
  const paths = Object.values(definition).map((m) => m.path);
  const name = paths[0]?.split('/')[1] ?? '';
  const methodOf = (methodName: string, streaming: boolean) => {
    const method = definition[methodName];
    if (method === undefined) throw new Error(`${name} has no method ${methodName}`);
    if (method.requestStream || method.responseStream !== streaming)
      throw new Error(`${name}.${methodName} is not a ${streaming ? 'server-streaming' : 'unary'} method`);
    return method;
  };
  const unary: UnaryMethod<unknown, unknown>[] = Object.entries<AnyUnary>(handlers.unary ?? {}).map(
    ([methodName, handle]) => {
      const method = methodOf(methodName, false);
      return {
        path: method.path,
        decode: (bytes: Buffer) => method.requestDeserialize(bytes),
        encode: (reply: unknown, reserve: number) => behind(method.responseSerialize(reply), reserve),
        handle,
      };
    },
  );
  const streaming: StreamMethod<unknown, unknown>[] = Object.entries<AnyStream>(handlers.streaming ?? {}).map(
    ([methodName, handle]) => {
      const method = methodOf(methodName, true);
      return {
        path: method.path,
        decode: (bytes: Buffer) => method.requestDeserialize(bytes),
        encode: (reply: unknown, reserve: number) => behind(method.responseSerialize(reply), reserve),
        handle,
      };
    },
  );
  return { name, unary, streaming };
}
