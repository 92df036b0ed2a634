// The command line client of envoyproxy/ratelimit (src/client_cmd/main.go): one ShouldRateLimit
// call with hits_addend 1. Flags as Go's flag package reads them: -name value, -name=value, --name.
//   npm run -s ratelimit:client -- -dial_string localhost:8081 -domain basic -descriptors key1=foo
import { credentials, type ServiceError } from '@grpc/grpc-js';
import { loadPackageDefinition, lookupService } from '../../../shared/grpc.ts';
import { RLS_PROTO, RLS_SERVICE } from '../adapters/grpc/rls-method.ts';
import type { WireRequest } from '../adapters/grpc/wire.ts';
import { parseKeyValueList } from '../settings/key-value-list.ts';

export interface ClientFlags {
  dialString: string;
  domain: string;
  descriptors: string[];
}

export class UsageError extends Error {}

export function parseFlags(args: readonly string[]): ClientFlags {
  const flags: ClientFlags = { dialString: 'localhost:8081', domain: '', descriptors: [] };
  for (let i = 0; i < args.length; i++) {
    const match = /^--?([a-z_]+)(?:=(.*))?$/s.exec(args[i]!);
    if (match === null) throw new UsageError(`unexpected argument ${args[i]}`);
    const name = match[1]!;
    const value = match[2] ?? args[++i];
    if (value === undefined) throw new UsageError(`flag needs an argument: -${name}`);
    if (name === 'dial_string') flags.dialString = value;
    else if (name === 'domain') flags.domain = value;
    else if (name === 'descriptors') flags.descriptors.push(value);
    else throw new UsageError(`flag provided but not defined: -${name}`);
  }
  return flags;
}

/** `k1=v1,k2=v2` → entries; a pair without exactly one `=` is refused as the Go client does. */
export function parseDescriptor(text: string): Array<{ key: string; value: string }> {
  const { pairs, bad } = parseKeyValueList(text, '=', { exact: true });
  if (bad.length > 0) throw new UsageError('invalid descriptor list');
  return pairs.map(([key, value]) => ({ key, value }));
}

/** A message in protobuf text format, close to what Go's prototext prints. */
export function protoText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const parts: string[] = [];
  for (const [key, field] of Object.entries(value)) {
    const items = Array.isArray(field) ? field : [field];
    for (const item of items) {
      if (item === null || item === undefined || item === '' || item === 0 || item === '0') continue;
      if (Buffer.isBuffer(item)) {
        if (item.length > 0) parts.push(`${key}:${JSON.stringify(item.toString('latin1'))}`);
        continue;
      }
      if (typeof item === 'object') parts.push(`${key}:{${protoText(item)}}`);
      else
        parts.push(
          `${key}:${typeof item === 'string' && !/^[A-Z_]+$/.test(item) && !/^\d+$/.test(item) ? JSON.stringify(item) : item}`,
        );
    }
  }
  return parts.join(' ');
}

async function main(): Promise<number> {
  let flags: ClientFlags;
  let request: WireRequest;
  try {
    flags = parseFlags(process.argv.slice(2));
    process.stdout.write(`Flag: --dial_string="${flags.dialString}"\n`);
    process.stdout.write(`Flag: --domain="${flags.domain}"\n`);
    process.stdout.write(`Flag: --descriptors="${flags.descriptors.join(' ')}"\n`);
    request = {
      domain: flags.domain,
      descriptors: flags.descriptors.map((d) => ({
        entries: parseDescriptor(d),
        limit: null,
        hits_addend: null,
      })),
      hits_addend: 1,
    };
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return error instanceof UsageError && error.message === 'invalid descriptor list' ? 1 : 2;
  }
  const RateLimitService = lookupService(loadPackageDefinition([RLS_PROTO]), RLS_SERVICE);
  const client = new RateLimitService(flags.dialString, credentials.createInsecure());
  try {
    const rls = client as unknown as {
      ShouldRateLimit(r: WireRequest, o: object, cb: (e: ServiceError | null, v: unknown) => void): void;
    };
    const response = await new Promise<unknown>((resolve, reject) =>
      rls.ShouldRateLimit(request, { deadline: Date.now() + 10_000 }, (error, reply) =>
        error ? reject(error) : resolve(reply),
      ),
    );
    process.stdout.write(`response: ${protoText(response)}\n`);
    return 0;
  } catch (error) {
    const e = error as ServiceError;
    const connecting = e.code === 14 || e.code === 4;
    process.stdout.write(`${connecting ? 'error connecting' : 'request error'}: ${e.details ?? e.message}\n`);
    return 1;
  } finally {
    client.close();
  }
}

if (import.meta.main) process.exitCode = await main();
