// A lean Redis connection for the counter store's single-node path: the commands of every
// decision made in one turn of the event loop leave in one socket write, and replies are parsed
// as integers straight from the bytes. Redis answers in order, so a FIFO of waiting pipelines is
// the whole bookkeeping. ioredis stays for sentinel, cluster and TLS.
import { connect, type Socket } from 'node:net';
import type { CounterIncrement } from '../../ports.ts';
import type { ConnectionEvents, CounterConnection } from './counter-connection.ts';
import { retryDelayMs } from './counter-connection.ts';
import { createRespReader } from './resp-reader.ts';

export interface RespConnectionOptions extends ConnectionEvents {
  /** TCP address, or `path` for a unix socket. */
  readonly host?: string;
  readonly port?: number;
  readonly path?: string;
  readonly username?: string;
  readonly password?: string;
  readonly connectTimeoutMs: number;
}

const INCREMENT = 0;
const TEXT = 1;

/** A request waiting for its replies, oldest first. */
interface Waiting {
  readonly kind: typeof INCREMENT | typeof TEXT;
  /** Replies still to come. */
  left: number;
  readonly items: readonly CounterIncrement[] | undefined;
  readonly counts: number[] | undefined;
  /** Index of the next reply. */
  at: number;
  text: string;
  failure: string | undefined;
  readonly resolve: (value: never) => void;
  readonly reject: (error: Error) => void;
}

const bulk = (text: string): string => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
const command = (...args: string[]): string => `*${args.length}\r\n${args.map(bulk).join('')}`;

export function createRespConnection(options: RespConnectionOptions): CounterConnection {
  let socket: Socket | undefined;
  let ready = false;
  let closing = false;
  let attempts = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let lastFailure = 'not connected yet';
  let queue: Waiting[] = [];
  let head = 0;
  let output = '';
  let flushScheduled = false;
  let answered = 0;
  let stallObservedAt: number | undefined;
  let stallAnswered = 0;
  const readyWaiters = new Set<{ resolve: () => void; reject: (error: Error) => void }>();

  const current = (): Waiting => {
    const waiting = queue[head];
    if (waiting === undefined) throw new Error('a reply came that nothing waits for');
    return waiting;
  };

  const settle = (waiting: Waiting): void => {
    head++;
    answered++;
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    } else if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    if (waiting.failure !== undefined) waiting.reject(new Error(waiting.failure));
    else if (waiting.kind === INCREMENT) waiting.resolve(waiting.counts as never);
    else waiting.resolve(waiting.text as never);
  };

  const reader = createRespReader({
    integer(value) {
      const waiting = current();
      if (waiting.kind === INCREMENT) {
        if ((waiting.at & 1) === 0) waiting.counts![waiting.at >> 1] = value;
      } else waiting.failure ??= `unexpected integer reply ${value}`;
      waiting.at++;
      if (--waiting.left === 0) settle(waiting);
    },
    simple(text) {
      const waiting = current();
      if (waiting.kind === TEXT) waiting.text = text;
      else waiting.failure ??= `unexpected reply ${text}`;
      waiting.at++;
      if (--waiting.left === 0) settle(waiting);
    },
    error(text) {
      const waiting = current();
      if (waiting.failure === undefined) {
        if (waiting.kind === INCREMENT) {
          const command = (waiting.at & 1) === 0 ? 'INCRBY' : 'EXPIRE';
          waiting.failure = `${command} ${waiting.items![waiting.at >> 1]!.key}: ${text}`;
        } else waiting.failure = text;
      }
      waiting.at++;
      if (--waiting.left === 0) settle(waiting);
    },
  });

  const flush = (): void => {
    flushScheduled = false;
    if (output === '') return;
    socket?.write(output);
    output = '';
  };

  const send = (text: string, waiting: Waiting): void => {
    output += text;
    queue.push(waiting);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };

  const request = (text: string, replies: number): Promise<string> =>
    new Promise<string>((resolve, reject) =>
      send(text, {
        kind: TEXT,
        left: replies,
        items: undefined,
        counts: undefined,
        at: 0,
        text: '',
        failure: undefined,
        resolve: resolve as (value: never) => void,
        reject,
      }),
    );

  const failEverything = (reason: string): void => {
    const waiting = queue.slice(head);
    queue = [];
    head = 0;
    output = '';
    for (const w of waiting) w.reject(new Error(reason));
  };

  const becomeReady = (): void => {
    ready = true;
    attempts = 0;
    socket?.setTimeout(0);
    for (const waiter of readyWaiters) waiter.resolve();
    readyWaiters.clear();
    options.onReady();
  };

  const open = (): void => {
    reconnectTimer = undefined;
    const s = options.path === undefined ? connect(options.port!, options.host) : connect(options.path);
    socket = s;
    s.setNoDelay(true);
    s.setTimeout(options.connectTimeoutMs, () =>
      s.destroy(new Error(`no connection within ${options.connectTimeoutMs} ms`)),
    );
    s.on('connect', () => {
      // The ready check: AUTH when configured, then PING must answer PONG (not LOADING).
      if (options.password !== undefined) {
        const auth =
          options.username === undefined
            ? command('AUTH', options.password)
            : command('AUTH', options.username, options.password);
        request(auth, 1).catch((error: Error) => s.destroy(error));
      }
      request(command('PING'), 1).then(
        (pong) => {
          if (pong === 'PONG' && socket === s) becomeReady();
          else s.destroy(new Error(`PING answered ${pong}`));
        },
        (error: Error) => s.destroy(error),
      );
    });
    s.on('data', (chunk: Buffer) => {
      try {
        reader.feed(chunk);
      } catch (error) {
        s.destroy(error as Error);
      }
    });
    s.on('error', (error) => {
      lastFailure = error.message;
      for (const waiter of readyWaiters) waiter.reject(error);
      readyWaiters.clear();
      options.onError(error);
    });
    s.on('close', () => {
      if (socket !== s) return;
      socket = undefined;
      const wasReady = ready;
      ready = false;
      failEverything(`connection lost: ${lastFailure}`);
      if (wasReady) options.onClose();
      if (!closing) reconnectTimer = setTimeout(open, retryDelayMs(++attempts));
    });
  };
  open();

  return {
    get ready() {
      return ready;
    },
    increment(items, expiry) {
      if (!ready) return Promise.reject(new Error(`not connected: ${lastFailure}`));
      let text = '';
      for (const item of items) {
        const key = bulk(item.key);
        const addend = String(item.addend);
        const ttl = String(expiry(item.windowSeconds));
        text += `*3\r\n$6\r\nINCRBY\r\n${key}$${addend.length}\r\n${addend}\r\n*3\r\n$6\r\nEXPIRE\r\n${key}$${ttl.length}\r\n${ttl}\r\n`;
      }
      return new Promise<number[]>((resolve, reject) =>
        send(text, {
          kind: INCREMENT,
          left: 2 * items.length,
          items,
          counts: new Array<number>(items.length),
          at: 0,
          text: '',
          failure: undefined,
          resolve: resolve as (value: never) => void,
          reject,
        }),
      );
    },
    ping() {
      if (!ready) return Promise.reject(new Error(`not connected: ${lastFailure}`));
      return request(command('PING'), 1);
    },
    whenReady(timeoutMs) {
      if (ready) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
          reject: (error: Error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          readyWaiters.delete(waiter);
          reject(new Error(`no connection within ${timeoutMs} ms`));
        }, timeoutMs);
        readyWaiters.add(waiter);
      });
    },
    stalled(nowMs, timeoutMs) {
      if (queue.length - head === 0) {
        stallObservedAt = undefined;
        return false;
      }
      if (stallObservedAt === undefined || answered !== stallAnswered) {
        stallAnswered = answered;
        stallObservedAt = nowMs;
        return false;
      }
      return nowMs - stallObservedAt > timeoutMs;
    },
    reset() {
      lastFailure = 'no answer in time';
      socket?.destroy();
    },
    async close() {
      closing = true;
      if (reconnectTimer !== undefined) clearTimeout(reconnectTimer);
      const s = socket;
      if (s === undefined) return;
      const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
      if (ready) {
        request(command('QUIT'), 1).catch(() => {});
        flush();
      } else s.destroy();
      const timer = setTimeout(() => s.destroy(), 1_000);
      await closed;
      clearTimeout(timer);
    },
  };
}
