// PBT trial names as Katib writes them, "<experiment>-<uuid4>", except that the uuid carries the
// trial's generation and serial number, permuted under a key, and a checksum. The service keeps no
// memory: reading the names of the request's trials tells it every trial's generation (Katib
// keeps that in process memory and loses it on restart).

import { createHash } from 'node:crypto';

export interface PbtMember {
  readonly generation: number;
  readonly serial: number;
}

const sha256 = (...parts: (string | Buffer)[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

export interface PbtNames {
  nameOf(member: PbtMember): string;
  /** The member a name stands for, or undefined for names this experiment's PBT did not write. */
  memberOf(name: string): PbtMember | undefined;
}

const HALF_BITS = 24;
const HALF = 2 ** HALF_BITS;
const ROUNDS = 4;

/** A keyed permutation of 48-bit numbers (Feistel network), so consecutive serials look unrelated. */
function feistel(value: number, key: Buffer, inverse: boolean): number {
  const round = (half: number, r: number): number =>
    sha256(key, String(r), String(half)).readUIntBE(0, 3) % HALF;
  let left = Math.floor(value / HALF);
  let right = value % HALF;
  if (!inverse) {
    for (let r = 0; r < ROUNDS; r++) [left, right] = [right, (left ^ round(right, r)) % HALF];
  } else {
    for (let r = ROUNDS - 1; r >= 0; r--) [left, right] = [(right ^ round(left, r)) % HALF, left];
  }
  return left * HALF + right;
}

export function createPbtNames(experimentName: string, seed: number): PbtNames {
  const key = sha256(`pbt-trial-name\0${experimentName}\0${seed}`);
  const prefix = `${experimentName}-`;
  const nameOf = ({ generation, serial }: PbtMember): string => {
    const payload = Buffer.alloc(6);
    payload.writeUIntBE(feistel(generation * 2 ** 32 + serial, key, false), 0, 6);
    const bytes = Buffer.concat([payload, sha256(key, payload).subarray(0, 10)]);
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytes.toString('hex');
    return `${prefix}${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
  return {
    nameOf,
    memberOf(name) {
      if (!name.startsWith(prefix)) return undefined;
      const hex = name.slice(prefix.length).replaceAll('-', '');
      if (!/^[0-9a-f]{32}$/.test(hex)) return undefined;
      const value = feistel(Buffer.from(hex.slice(0, 12), 'hex').readUIntBE(0, 6), key, true);
      const member = { generation: Math.floor(value / 2 ** 32), serial: value % 2 ** 32 };
      return member.generation < 2 ** 16 && nameOf(member) === name ? member : undefined;
    },
  };
}
