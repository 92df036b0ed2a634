// The replies of memcached's text protocol, as this client reads them from the connection's bytes:
// a get's VALUE lines and data blocks (counted in bytes, as the protocol counts them) up to END, or
// one line for incr, add and cas (a gets's VALUE lines carry the CAS unique); ERROR, CLIENT_ERROR and SERVER_ERROR lines for either.

export type MemcacheReply =
  | { kind: 'values'; values: Map<string, string>; casUniques: Map<string, string> }
  | { kind: 'line'; line: string }
  | { kind: 'error'; line: string };

/** Bytes that are not a reply: the connection is out of step and must be closed. */
export class MemcacheProtocolError extends Error {
  override name = 'MemcacheProtocolError';
}

// A key holds no control character or whitespace (protocol.txt); an error's text may hold anything.
const VALUE_LINE = /^VALUE ([^ ]+) \d+ (\d+)(?: (\d+))?$/s;
const plainKey = (key: string): boolean => {
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) <= 32 || key.charCodeAt(i) === 127) return false;
  return true;
};
const ERROR_LINE = /^(?:ERROR|CLIENT_ERROR|SERVER_ERROR)(?: .*)?$/s;
const EMPTY = Buffer.alloc(0);

export class MemcacheReplyReader {
  private buffer: Buffer = EMPTY;
  private values = new Map<string, string>();
  private casUniques = new Map<string, string>();

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
  }

  /** Forgets what was read (nothing is awaited, or the connection closed). */
  reset(): void {
    this.buffer = EMPTY;
    this.values = new Map();
    this.casUniques = new Map();
  }

  /**
   * The reply to the oldest request (`multi`: a get) once its bytes are all here, else undefined;
   * throws MemcacheProtocolError on bytes that are not one.
   */
  next(multi: boolean): MemcacheReply | undefined {
    for (;;) {
      const end = this.buffer.indexOf('\r\n');
      if (end < 0) return undefined;
      const line = this.buffer.toString('utf8', 0, end);
      if (multi && line.startsWith('VALUE ')) {
        const value = VALUE_LINE.exec(line);
        if (value === null || !plainKey(value[1]!))
          throw new MemcacheProtocolError(`malformed ${JSON.stringify(line)}`);
        const blockEnd = end + 2 + Number(value[2]);
        if (this.buffer.length < blockEnd + 2) return undefined;
        if (this.buffer[blockEnd] !== 13 || this.buffer[blockEnd + 1] !== 10)
          throw new MemcacheProtocolError(`the data block of ${value[1]} is not ended by \\r\\n`);
        this.values.set(value[1]!, this.buffer.toString('utf8', end + 2, blockEnd));
        if (value[3] !== undefined) this.casUniques.set(value[1]!, value[3]);
        this.buffer = this.buffer.subarray(blockEnd + 2);
        continue;
      }
      this.buffer = this.buffer.subarray(end + 2);
      if (ERROR_LINE.test(line)) {
        this.values = new Map();
        this.casUniques = new Map();
        return { kind: 'error', line };
      }
      if (!multi) return { kind: 'line', line };
      if (line !== 'END')
        throw new MemcacheProtocolError(`unexpected ${JSON.stringify(line)} in a get's reply`);
      const { values, casUniques } = this;
      this.values = new Map();
      this.casUniques = new Map();
      return { kind: 'values', values, casUniques };
    }
  }
}
