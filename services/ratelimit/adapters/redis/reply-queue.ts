// The requests of one RESP connection waiting for their replies. Redis answers in order, so a FIFO
// is the whole bookkeeping: each reply goes to the oldest request still waiting, which settles once
// its last reply came. An INCREMENT request keeps the INCRBY counts and skips the EXPIRE replies; a
// SCRIPTS request keeps each script's array of integers, or its error.
import type { CounterIncrement } from '../../ports.ts';
import type { RespReplies } from './resp-reader.ts';

const INCREMENT = 0;
const TEXT = 1;
const SCRIPTS = 2;

/** One script's reply: its array of integers, or the error text it answered. */
export type ScriptResult = number[] | string;

/** A request waiting for its replies, oldest first. */
interface Waiting {
  readonly kind: typeof INCREMENT | typeof TEXT | typeof SCRIPTS;
  /** Replies still to come. */
  left: number;
  readonly items: readonly CounterIncrement[] | undefined;
  readonly counts: number[] | undefined;
  /** Index of the next reply. */
  at: number;
  text: string;
  failure: string | undefined;
  /** SCRIPTS: each script's result so far, and the elements its array still waits for. */
  readonly results: ScriptResult[] | undefined;
  elementsLeft: number;
  readonly resolve: (value: never) => void;
  readonly reject: (error: Error) => void;
}

export interface ReplyQueue {
  /** Where the reader hands each reply. */
  readonly replies: RespReplies;
  /** A request whose INCRBY + EXPIRE pairs for `items` were sent: resolves with the counts. */
  increments(items: readonly CounterIncrement[]): Promise<number[]>;
  /** A request of `count` scripts: resolves with each one's result. */
  scripts(count: number): Promise<ScriptResult[]>;
  /** A request of `replies` simple replies: resolves with the last one's text. */
  text(replies: number): Promise<string>;
  /** Whether requests have been waiting more than `timeoutMs` without any reply settling one. */
  stalled(nowMs: number, timeoutMs: number): boolean;
  /** Fails every waiting request with `reason` and empties the queue. */
  failAll(reason: string): void;
}

export function createReplyQueue(): ReplyQueue {
  let queue: Waiting[] = [];
  let head = 0;
  let answered = 0;
  let stallObservedAt: number | undefined;
  let stallAnswered = 0;

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
    else if (waiting.kind === SCRIPTS) waiting.resolve(waiting.results as never);
    else waiting.resolve(waiting.text as never);
  };

  /** Counts one reply of the oldest request. */
  const next = (waiting: Waiting): void => {
    waiting.at++;
    if (--waiting.left === 0) settle(waiting);
  };

  const enqueue = <T>(
    kind: Waiting['kind'],
    left: number,
    items: readonly CounterIncrement[] | undefined,
  ): Promise<T> =>
    new Promise<T>((resolve, reject) =>
      queue.push({
        kind,
        left,
        items,
        counts: items === undefined ? undefined : new Array<number>(items.length),
        at: 0,
        text: '',
        failure: undefined,
        results: kind === SCRIPTS ? [] : undefined,
        elementsLeft: 0,
        resolve: resolve as (value: never) => void,
        reject,
      }),
    );

  return {
    replies: {
      integer(value) {
        const waiting = current();
        if (waiting.kind === INCREMENT) {
          if ((waiting.at & 1) === 0) waiting.counts![waiting.at >> 1] = value;
        } else if (waiting.kind === SCRIPTS) {
          if (waiting.elementsLeft > 0) {
            (waiting.results![waiting.at] as number[]).push(value);
            if (--waiting.elementsLeft > 0) return;
          } else waiting.results![waiting.at] = `unexpected integer reply ${value}`;
        } else waiting.failure ??= `unexpected integer reply ${value}`;
        next(waiting);
      },
      simple(text) {
        const waiting = current();
        if (waiting.kind === TEXT) waiting.text = text;
        else if (waiting.kind === SCRIPTS && waiting.elementsLeft === 0)
          waiting.results![waiting.at] = `unexpected reply ${text}`;
        else if (waiting.kind === SCRIPTS) throw new Error(`unexpected reply inside an array: ${text}`);
        else waiting.failure ??= `unexpected reply ${text}`;
        next(waiting);
      },
      array(length) {
        const waiting = current();
        // Only scripts answer arrays; one anywhere else leaves the connection out of step.
        if (waiting.kind !== SCRIPTS || waiting.elementsLeft > 0)
          throw new Error(`unexpected array reply of ${length}`);
        waiting.results![waiting.at] = [];
        if (length > 0) waiting.elementsLeft = length;
        else next(waiting);
      },
      error(text) {
        const waiting = current();
        if (waiting.kind === SCRIPTS) {
          if (waiting.elementsLeft > 0) throw new Error(`unexpected error inside an array: ${text}`);
          waiting.results![waiting.at] = text;
          next(waiting);
          return;
        }
        if (waiting.failure === undefined) {
          if (waiting.kind === INCREMENT) {
            const command = (waiting.at & 1) === 0 ? 'INCRBY' : 'EXPIRE';
            waiting.failure = `${command} ${waiting.items![waiting.at >> 1]!.key}: ${text}`;
          } else waiting.failure = text;
        }
        next(waiting);
      },
    },
    increments: (items) => enqueue<number[]>(INCREMENT, 2 * items.length, items),
    scripts: (count) => enqueue<ScriptResult[]>(SCRIPTS, count, undefined),
    text: (replies) => enqueue<string>(TEXT, replies, undefined),
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
    failAll(reason) {
      const waiting = queue.slice(head);
      queue = [];
      head = 0;
      for (const w of waiting) w.reject(new Error(reason));
    },
  };
}
