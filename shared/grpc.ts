// How .proto files are loaded, for gRPC clients and for the proto-loader definitions the servers'
// services are read from (shared/rpc/proto-service.ts).
import path from 'node:path';
import {
  type GrpcObject,
  loadPackageDefinition as grpcLoadPackageDefinition,
  type ServiceClientConstructor,
} from '@grpc/grpc-js';
import { loadSync, type Options as ProtoLoaderOptions } from '@grpc/proto-loader';
import { AppError } from './errors.ts';

/** Absolute path of the repository's `proto/` folder; imports inside .proto files are relative to it. */
export const PROTO_ROOT: string = path.resolve(import.meta.dirname, '..', 'proto');

/** How every .proto file is loaded: field names as written, 64-bit integers and enums as strings. */
export const PROTO_LOADER_OPTIONS: Readonly<ProtoLoaderOptions> = Object.freeze({
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});

/** Loads .proto files (paths relative to PROTO_ROOT) into grpc-js client constructors and definitions. */
export function loadPackageDefinition(protoFiles: string[]): GrpcObject {
  const definition = loadSync(
    protoFiles.map((file) => path.resolve(PROTO_ROOT, file)),
    { ...PROTO_LOADER_OPTIONS, includeDirs: [PROTO_ROOT] },
  );
  return grpcLoadPackageDefinition(definition);
}

/**
 * The service with the given fully qualified name (e.g. `grpc.health.v1.Health`) in a loaded
 * package; its `.service` is the ServiceDefinition a server needs, and it constructs clients.
 */
export function lookupService(root: GrpcObject, fullName: string): ServiceClientConstructor {
  let node: unknown = root;
  for (const part of fullName.split('.')) {
    node =
      typeof node === 'object' || typeof node === 'function'
        ? (node as GrpcObject | null)?.[part]
        : undefined;
  }
  if (typeof node !== 'function' || !('service' in node)) {
    throw new AppError('INTERNAL', `gRPC service ${fullName} is not in the loaded package definition`);
  }
  return node as ServiceClientConstructor;
}

export { HEALTH_PROTO, type ReportedStatus, type ServingStatus } from './rpc/health.ts';
