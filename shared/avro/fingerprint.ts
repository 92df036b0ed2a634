/**
 * CRC-64-AVRO (Rabin) fingerprint, as the Avro specification defines it for schema fingerprints
 * and single-object encoding. avsc's own `fingerprint('CRC-64-AVRO')` throws, so it is computed here.
 */

const EMPTY = 0xc15d213aa4d7a795n;
const MASK = 0xffffffffffffffffn;

const TABLE: readonly bigint[] = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let bit = 0; bit < 8; bit++) fp = (fp >> 1n) ^ (fp & 1n ? EMPTY : 0n);
  return fp;
});

/** The fingerprint of the given bytes (for a schema: of its Parsing Canonical Form, UTF-8). */
export function crc64Avro(bytes: Uint8Array): bigint {
  let fp = EMPTY;
  for (const byte of bytes) fp = ((fp >> 8n) ^ TABLE[Number((fp ^ BigInt(byte)) & 0xffn)]!) & MASK;
  return fp;
}

/** The 8 bytes that follow the `C3 01` marker of single-object encoding: little-endian. */
export function fingerprintBytes(fingerprint: bigint): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(fingerprint);
  return bytes;
}

/** As Avro's Java and Ruby libraries print it: the fingerprint as a signed 64-bit integer. */
export function toSigned64(fingerprint: bigint): bigint {
  return BigInt.asIntN(64, fingerprint);
}
