// A small memcached text-protocol client: get (multi), gets and cas, incr and add, pipelined in order on a few
// connections per node; nodes chosen as gomemcache does (CRC-32 IEEE of the key, modulo nodes),
// so every instance given the same node list maps a key to the same node.
import { createConnection, type Socket } from 'node:net';
import { crc32 } from 'node:zlib';
import { type MemcacheReply, MemcacheReplyReader } from './memcache-replies.ts';

export const MAX_KEY_LENGTH = 250;

/** gomemcache's ErrMalformedKey: too long, or holding whitespace or control characters. */
export function validKey(key: string): boolean {
  if (key.length > MAX_KEY_LENGTH) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c <= 32 || c === 127) return false;
  }
  return Buffer.byteLength(key) <= MAX_KEY_LENGTH;
}

type Reply = Exclude<MemcacheReply, { kind: 'error' }>;

interface Pending {
  readonly multi: boolean;
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: Error) => void;
}

/** One connection: requests are written at once and answered in order. */
class Connection {
  private socket: Socket | undefined;
  private readonly reader = new MemcacheReplyReader();
  private readonly pending: Pending[] = [];

  private readonly host: string;
  private readonly port: number;
  private readonly timeoutMs: number;

  constructor(host: string, port: number, timeoutMs: number) {
    this.host = host;
    this.port = port;
    this.timeoutMs = timeoutMs;
  }

  request(command: string, multi: boolean): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const socket = this.open();
      this.pending.push({ multi, resolve, reject });
      socket.write(command);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): Socket {
    if (this.socket !== undefined) return this.socket;
    const socket = createConnection({ host: this.host, port: this.port });
    socket.setNoDelay(true);
    socket.setTimeout(this.timeoutMs);
    socket.on('data', (chunk: Buffer) => this.receive(socket, chunk));
    socket.on('timeout', () => socket.destroy(new Error(`memcache ${this.host}:${this.port}: i/o timeout`)));
    const fail = (error?: Error): void => {
      if (this.socket === socket) this.socket = undefined;
      this.reader.reset();
      const failure = error ?? new Error(`memcache ${this.host}:${this.port}: connection closed`);
      for (const waiting of this.pending.splice(0)) waiting.reject(failure);
    };
    socket.on('error', fail);
    socket.on('close', () => fail());
    this.socket = socket;
    return socket;
  }

  private receive(socket: Socket, chunk: Buffer): void {
    this.reader.push(chunk);
    for (;;) {
      const head = this.pending[0];
      if (head === undefined) {
        this.reader.reset();
        return;
      }
      let reply: MemcacheReply | undefined;
      try {
        reply = this.reader.next(head.multi);
      } catch (error) {
        socket.destroy(new Error(`memcache ${this.host}:${this.port}: ${(error as Error).message}`));
        return;
      }
      if (reply === undefined) return;
      this.pending.shift();
      if (reply.kind === 'error') head.reject(new Error(`memcache: ${reply.line}`));
      else head.resolve(reply);
    }
  }
}

export interface MemcacheClient {
  /** Values of the keys found, by key. */
  getMulti(keys: readonly string[]): Promise<Map<string, string>>;
  /** The value after adding, or undefined when the key does not exist. */
  increment(key: string, delta: number): Promise<number | undefined>;
  /** Stores the value only if the key is absent; false when it exists (NOT_STORED). */
  add(key: string, value: string, expirationSeconds: number): Promise<boolean>;
  /** The value with its cas unique, or undefined when the key is absent. */
  gets(key: string): Promise<{ value: string; casUnique: string } | undefined>;
  /** Stores the value only if the key is unchanged since `gets` gave `casUnique`; false when it changed or went. */
  cas(key: string, value: string, expirationSeconds: number, casUnique: string): Promise<boolean>;
  setServers(servers: readonly string[]): void;
  close(): void;
}

export function createMemcacheClient(options: {
  servers: readonly string[];
  connectionsPerNode: number;
  timeoutMs: number;
}): MemcacheClient {
  let nodes: Connection[][] = [];
  const setServers = (servers: readonly string[]): void => {
    for (const node of nodes) for (const c of node) c.close();
    nodes = servers.map((server) => {
      const colon = server.lastIndexOf(':');
      const host = server.slice(0, colon).replace(/^\[|\]$/g, '');
      const port = Number(server.slice(colon + 1));
      return Array.from(
        { length: options.connectionsPerNode },
        () => new Connection(host, port, options.timeoutMs),
      );
    });
  };
  setServers(options.servers);

  const keyHash = (key: string): number => crc32(Buffer.from(key).subarray(0, 256));
  /** The node by key hash; the connection too, so commands on one key stay in order. */
  const connectionFor = (key: string): Connection => {
    if (nodes.length === 0) throw new Error('memcache: no servers');
    const hash = keyHash(key);
    const node = nodes[hash % nodes.length]!;
    return node[Math.floor(hash / nodes.length) % node.length]!;
  };
  const checkKey = (key: string): void => {
    if (!validKey(key)) throw new Error('memcache: key is too long or contains invalid characters');
  };

  return {
    async getMulti(keys) {
      for (const key of keys) checkKey(key);
      const byConnection = new Map<Connection, string[]>();
      for (const key of keys) {
        const connection = connectionFor(key);
        const list = byConnection.get(connection);
        if (list === undefined) byConnection.set(connection, [key]);
        else list.push(key);
      }
      const replies = await Promise.all(
        [...byConnection].map(([connection, list]) => connection.request(`get ${list.join(' ')}\r\n`, true)),
      );
      const found = new Map<string, string>();
      for (const reply of replies)
        if (reply.kind === 'values') for (const [k, v] of reply.values) found.set(k, v);
      return found;
    },
    async increment(key, delta) {
      checkKey(key);
      const reply = await connectionFor(key).request(`incr ${key} ${delta}\r\n`, false);
      if (reply.kind !== 'line' || reply.line === 'NOT_FOUND') return undefined;
      return Number(reply.line);
    },
    async add(key, value, expirationSeconds) {
      checkKey(key);
      const reply = await connectionFor(key).request(
        `add ${key} 0 ${expirationSeconds} ${Buffer.byteLength(value)}\r\n${value}\r\n`,
        false,
      );
      return reply.kind === 'line' && reply.line === 'STORED';
    },
    async gets(key) {
      checkKey(key);
      const reply = await connectionFor(key).request(`gets ${key}\r\n`, true);
      if (reply.kind !== 'values') return undefined;
      const value = reply.values.get(key);
      const casUnique = reply.casUniques.get(key);
      return value === undefined || casUnique === undefined ? undefined : { value, casUnique };
    },
    async cas(key, value, expirationSeconds, casUnique) {
      checkKey(key);
      const reply = await connectionFor(key).request(
        `cas ${key} 0 ${expirationSeconds} ${Buffer.byteLength(value)} ${casUnique}\r\n${value}\r\n`,
        false,
      );
      return reply.kind === 'line' && reply.line === 'STORED';
    },
    setServers,
    close: () => {
      for (const node of nodes) for (const c of node) c.close();
    },
  };
}
