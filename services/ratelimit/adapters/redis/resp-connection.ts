// The lean Redis connection of the single-node path: a turn's commands leave in one write, and the
// replies are read as integers straight from the bytes (./reply-queue.ts); ioredis does the rest.
import { connect, type Socket } from 'node:net';
import type { CounterIncrement, LimitOperation, LimitReply } from '../../ports.ts';
import type { ConnectionEvents, CounterConnection } from './counter-connection.ts';
import { retryDelayMs } from './counter-connection.ts';
import {
  limitReply,
  SLIDING_WINDOW_SCRIPT,
  scriptArguments,
  scriptOf,
  TOKEN_BUCKET_SCRIPT,
} from './limit-scripts.ts';
import { createReplyQueue, type ScriptResult } from './reply-queue.ts';
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

const bulk = (text: string): string => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
const command = (...args: string[]): string => `*${args.length}\r\n${args.map(bulk).join('')}`;

/** INCRBY key addend and EXPIRE key expiry(window) for every item, as RESP commands. */
function incrementCommands(
  items: readonly CounterIncrement[],
  expiry: (windowSeconds: number) => number,
): string {
  let text = '';
  for (const item of items) {
    const key = bulk(item.key);
    const addend = String(item.addend);
    const ttl = String(expiry(item.windowSeconds));
    text += `*3\r\n$6\r\nINCRBY\r\n${key}$${addend.length}\r\n${addend}\r\n*3\r\n$6\r\nEXPIRE\r\n${key}$${ttl.length}\r\n${ttl}\r\n`;
  }
  return text;
}

/** EVALSHA (or EVAL with the script's text) of every operation, as RESP commands. */
function scriptCommands(operations: readonly LimitOperation[], withText: boolean): string {
  let text = '';
  for (const operation of operations) {
    const script = scriptOf(operation);
    // Ten parts: the command, the script, one key, the key, six arguments (ASCII digits).
    text += withText ? `*10\r\n$4\r\nEVAL\r\n${bulk(script.lua)}$1\r\n1\r\n` : EVALSHA_HEAD[script.name]!;
    text += bulk(operation.key);
    for (const argument of scriptArguments(operation)) text += `$${argument.length}\r\n${argument}\r\n`;
  }
  return text;
}

const EVALSHA_HEAD: Readonly<Record<string, string>> = Object.fromEntries(
  [SLIDING_WINDOW_SCRIPT, TOKEN_BUCKET_SCRIPT].map((script) => [
    script.name,
    `*10\r\n$7\r\nEVALSHA\r\n$40\r\n${script.sha}\r\n$1\r\n1\r\n`,
  ]),
);

/** Who waits for the connection to be ready: released by the ready check, failed by an error or their timeout. */
function createReadyWaiters() {
  const waiters = new Set<{ resolve: () => void; reject: (error: Error) => void }>();
  return {
    wait: (timeoutMs: number): Promise<void> =>
      new Promise<void>((resolve, reject) => {
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
          waiters.delete(waiter);
          reject(new Error(`no connection within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(waiter);
      }),
    resolveAll(): void {
      for (const waiter of waiters) waiter.resolve();
      waiters.clear();
    },
    rejectAll(error: Error): void {
      for (const waiter of waiters) waiter.reject(error);
      waiters.clear();
    },
  };
}

const isNoScript = (result: ScriptResult): boolean =>
  typeof result === 'string' && result.startsWith('NOSCRIPT');

export function createRespConnection(options: RespConnectionOptions): CounterConnection {
  let socket: Socket | undefined;
  let ready = false;
  let closing = false;
  let attempts = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let lastFailure = 'not connected yet';
  const pending = createReplyQueue();
  let output = '';
  let flushScheduled = false;
  const readyWaiters = createReadyWaiters();

  const reader = createRespReader(pending.replies);

  const flush = (): void => {
    flushScheduled = false;
    if (output === '') return;
    socket?.write(output);
    output = '';
  };

  /** Queues `text` for the next write: every command of this turn of the event loop leaves in one. */
  const write = (text: string): void => {
    output += text;
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };

  const request = (text: string, replies: number): Promise<string> => {
    write(text);
    return pending.text(replies);
  };

  const failEverything = (reason: string): void => {
    output = '';
    pending.failAll(reason);
  };

  const becomeReady = (): void => {
    ready = true;
    attempts = 0;
    socket?.setTimeout(0);
    readyWaiters.resolveAll();
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
      readyWaiters.rejectAll(error);
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
      write(incrementCommands(items, expiry));
      return pending.increments(items);
    },
    async take(operations) {
      if (!ready) throw new Error(`not connected: ${lastFailure}`);
      write(scriptCommands(operations, false));
      const results = await pending.scripts(operations.length);
      // A server that lost the scripts (restarted, SCRIPT FLUSH) gets their text once.
      const lost = operations.filter((_, i) => isNoScript(results[i]!));
      if (lost.length > 0) {
        if (!ready) throw new Error(`not connected: ${lastFailure}`);
        write(scriptCommands(lost, true));
        const again = await pending.scripts(lost.length);
        let next = 0;
        results.forEach((result, i) => {
          if (isNoScript(result)) results[i] = again[next++]!;
        });
      }
      return results.map((result, i): LimitReply => {
        if (typeof result === 'string') throw new Error(`EVALSHA ${operations[i]!.key}: ${result}`);
        return limitReply(result);
      });
    },
    ping() {
      if (!ready) return Promise.reject(new Error(`not connected: ${lastFailure}`));
      return request(command('PING'), 1);
    },
    whenReady: (timeoutMs) => (ready ? Promise.resolve() : readyWaiters.wait(timeoutMs)),
    stalled: (nowMs, timeoutMs) => pending.stalled(nowMs, timeoutMs),
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
