import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { AppError, invalidArgument } from '../errors.ts';
import { crc64Avro, fingerprintBytes } from './fingerprint.ts';
import { LOGICAL_TYPES } from './timestamp-millis.ts';

/** Where the product's event schemas live: one file per event and version, `<event>.v<N>.avsc`. */
export const SCHEMAS_DIR = join(import.meta.dirname, '..', '..', 'schemas');

const MAGIC = Buffer.from([0xc3, 0x01]);
const HEADER_BYTES = 10;
const FILE_NAME = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.v([1-9]\d*)\.avsc$/;

export interface SchemaVersion {
  /** The record's simple name, e.g. ObservationLogReported: the `event-type` header. */
  readonly eventType: string;
  readonly version: number;
  readonly file: string;
  readonly type: avro.Type;
  /** Parsing Canonical Form, the text the fingerprint is computed over. */
  readonly canonical: string;
  readonly fingerprint: bigint;
  /** `C3 01` + fingerprint: the first 10 bytes of every value written with this version. */
  readonly header: Buffer;
}

export interface DecodedEvent {
  readonly eventType: string;
  /** The version the producer wrote; the payload is always in the reader version's shape. */
  readonly writerVersion: number;
  readonly readerVersion: number;
  readonly payload: Record<string, unknown>;
}

export interface EventCatalog {
  /** Every version of every event, oldest first within an event. */
  readonly versions: readonly SchemaVersion[];
  /** The version this process reads into and writes (the newest, unless pinned). */
  current(eventType: string): SchemaVersion;
  /** Single-object encoding of `payload`; INVALID_ARGUMENT naming the field when it does not fit. */
  encode(eventType: string, payload: object): Buffer;
  /** Decodes any known version into the reader version; INVALID_ARGUMENT for corrupt or unknown data. */
  decode(bytes: Buffer): DecodedEvent;
}

export interface CatalogOptions {
  /** Read (and write) an older version of some events, as a not-yet-upgraded consumer would. */
  readonly pin?: Readonly<Record<string, number>>;
}

const kebab = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

function parseSchemaFile(dir: string, file: string): SchemaVersion {
  const match = FILE_NAME.exec(file);
  if (!match) throw invalidArgument(`schema file ${file}: name must be <event-name>.v<N>.avsc`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  } catch (error) {
    throw invalidArgument(`schema file ${file}: not JSON: ${(error as Error).message}`, error);
  }
  const type = avro.Type.forSchema(json as avro.Schema, { logicalTypes: LOGICAL_TYPES });
  const simpleName = type.name?.split('.').pop();
  if (type.typeName !== 'record' || !simpleName)
    throw invalidArgument(`schema file ${file}: must be a named record`);
  if (kebab(simpleName) !== match[1]) {
    throw invalidArgument(
      `schema file ${file}: record ${simpleName} must live in ${kebab(simpleName)}.v<N>.avsc`,
    );
  }
  // avsc's schema() without attributes is the Parsing Canonical Form (full names, no docs or defaults).
  const canonical = JSON.stringify(type.schema());
  const fingerprint = crc64Avro(Buffer.from(canonical, 'utf8'));
  return {
    eventType: simpleName,
    version: Number(match[2]),
    file,
    type,
    canonical,
    fingerprint,
    header: Buffer.concat([MAGIC, fingerprintBytes(fingerprint)]),
  };
}

export function loadCatalog(dir: string = SCHEMAS_DIR, options: CatalogOptions = {}): EventCatalog {
  const versions = readdirSync(dir)
    .filter((f) => f.endsWith('.avsc'))
    .map((f) => parseSchemaFile(dir, f))
    .sort((a, b) => a.eventType.localeCompare(b.eventType) || a.version - b.version);

  const byFingerprint = new Map<bigint, SchemaVersion>();
  const readers = new Map<string, SchemaVersion>();
  for (const v of versions) {
    const clash = byFingerprint.get(v.fingerprint);
    if (clash) throw invalidArgument(`schema files ${clash.file} and ${v.file} have the same canonical form`);
    byFingerprint.set(v.fingerprint, v);
    const pinned = options.pin?.[v.eventType];
    if (pinned === undefined ? true : v.version === pinned) readers.set(v.eventType, v);
  }
  for (const [eventType, version] of Object.entries(options.pin ?? {})) {
    if (readers.get(eventType)?.version !== version)
      throw invalidArgument(`no schema ${eventType} v${version} in ${dir}`);
  }

  const resolvers = new Map<bigint, avro.Resolver>();
  const resolverFor = (writer: SchemaVersion, reader: SchemaVersion): avro.Resolver => {
    let resolver = resolvers.get(writer.fingerprint);
    if (!resolver) {
      try {
        resolver = reader.type.createResolver(writer.type);
      } catch (error) {
        throw invalidArgument(
          `${writer.eventType} v${writer.version} cannot be read as v${reader.version}: ${(error as Error).message}`,
          error,
        );
      }
      resolvers.set(writer.fingerprint, resolver);
    }
    return resolver;
  };

  const current = (eventType: string): SchemaVersion => {
    const reader = readers.get(eventType);
    if (!reader)
      throw invalidArgument(`unknown event type ${JSON.stringify(eventType)}: no schema in ${dir}`);
    return reader;
  };

  return Object.freeze({
    versions: Object.freeze(versions),
    current,
    encode(eventType: string, payload: object): Buffer {
      const schema = current(eventType);
      const problems: string[] = [];
      const valid = schema.type.isValid(payload, {
        errorHook: (path, value, type) => {
          const shown = value === undefined ? 'missing' : (JSON.stringify(value) ?? String(value));
          problems.push(`${path.join('.') || '(root)'}: ${shown} is not a valid ${type.typeName}`);
        },
      });
      if (!valid) throw invalidArgument(`${eventType} v${schema.version}: ${problems.join('; ')}`);
      return Buffer.concat([schema.header, schema.type.toBuffer(payload)]);
    },
    decode(bytes: Buffer): DecodedEvent {
      if (bytes.length < HEADER_BYTES || bytes[0] !== MAGIC[0] || bytes[1] !== MAGIC[1]) {
        throw invalidArgument('not an Avro single-object encoded value (no C3 01 marker)');
      }
      const fingerprint = bytes.readBigUInt64LE(2);
      const writer = byFingerprint.get(fingerprint);
      if (!writer) {
        throw invalidArgument(`unknown schema fingerprint ${fingerprint.toString(16).padStart(16, '0')}`);
      }
      const reader = current(writer.eventType);
      const body = bytes.subarray(HEADER_BYTES);
      try {
        const payload =
          writer === reader
            ? reader.type.fromBuffer(body)
            : reader.type.fromBuffer(body, resolverFor(writer, reader));
        return {
          eventType: writer.eventType,
          writerVersion: writer.version,
          readerVersion: reader.version,
          payload,
        };
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw invalidArgument(
          `corrupt ${writer.eventType} v${writer.version} body: ${(error as Error).message}`,
          error,
        );
      }
    },
  });
}
