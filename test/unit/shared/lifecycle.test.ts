import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLifecycle, type Lifecycle } from '../../../shared/lifecycle.ts';
import { memoryLogger } from '../../helpers/memory-logger.ts';

interface LogLine {
  level: string;
  msg: string;
  reason?: string;
  clean?: boolean;
  component?: string;
  deadlineMs?: number;
  err?: { type?: string; message?: string };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<void>(() => {});

function setup(deadlineMs = 1000): { lifecycle: Lifecycle; lines: LogLine[]; ran: string[] } {
  const { logger, lines } = memoryLogger<LogLine>();
  return { lifecycle: createLifecycle({ logger, deadlineMs }), lines, ran: [] };
}

describe('createLifecycle: stop', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('with nothing registered resolves true and logs stopping/stopped', async () => {
    const { lifecycle, lines } = setup();
    await expect(lifecycle.stop('test')).resolves.toBe(true);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['info', 'stopping'],
      ['info', 'stopped'],
    ]);
    expect(lines[0]?.reason).toBe('test');
    expect(lines[1]?.clean).toBe(true);
  });

  it('runs stops in reverse registration order, awaiting each before the next', async () => {
    const { lifecycle, lines, ran } = setup();
    lifecycle.onStop('db', () => {
      ran.push('db');
    });
    lifecycle.onStop('consumer', async () => {
      await sleep(10);
      ran.push('consumer');
    });
    lifecycle.onStop('server', async () => {
      ran.push('server:start');
      await sleep(5);
      ran.push('server:end');
    });
    await expect(lifecycle.stop('done')).resolves.toBe(true);
    expect(ran).toEqual(['server:start', 'server:end', 'consumer', 'db']);
    expect(lines.filter((l) => l.level !== 'info')).toEqual([]);
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped', clean: true });
  });

  it.each([
    {
      kind: 'throws synchronously',
      stop: () => {
        throw new Error('sync boom');
      },
      message: 'sync boom',
    },
    {
      kind: 'rejects',
      stop: async () => {
        await sleep(1);
        throw new Error('async boom');
      },
      message: 'async boom',
    },
  ])(
    'a stop that $kind is logged, the rest still run, and the result is false',
    async ({ stop, message }) => {
      const { lifecycle, lines, ran } = setup();
      lifecycle.onStop('first', () => {
        ran.push('first');
      });
      lifecycle.onStop('broken', stop);
      lifecycle.onStop('last', () => {
        ran.push('last');
      });
      await expect(lifecycle.stop('test')).resolves.toBe(false);
      expect(ran).toEqual(['last', 'first']);
      const errors = lines.filter((l) => l.level === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        msg: 'component failed to stop',
        component: 'broken',
        err: { message },
      });
      expect(lines.at(-1)).toMatchObject({ msg: 'stopped', clean: false });
    },
  );

  it('keeps going after several failures', async () => {
    const { lifecycle, lines, ran } = setup();
    for (const name of ['a', 'b', 'c']) {
      lifecycle.onStop(name, () => {
        ran.push(name);
        throw new Error(`${name} failed`);
      });
    }
    await expect(lifecycle.stop('test')).resolves.toBe(false);
    expect(ran).toEqual(['c', 'b', 'a']);
    expect(lines.filter((l) => l.level === 'error').map((l) => l.component)).toEqual(['c', 'b', 'a']);
  });

  it('a stop that hangs past the deadline makes stop() resolve false after about the deadline', async () => {
    const { lifecycle, lines, ran } = setup(50);
    lifecycle.onStop('stuck', never);
    lifecycle.onStop('quick', () => {
      ran.push('quick');
    });
    const started = performance.now();
    const clean = await lifecycle.stop('test');
    const elapsed = performance.now() - started;
    expect(clean).toBe(false);
    expect(ran).toEqual(['quick']);
    // Loose bounds: it waited for the deadline, and did not wait for the hanging stop.
    expect(elapsed).toBeGreaterThanOrEqual(40);
    expect(elapsed).toBeLessThan(2000);
    expect(lines.filter((l) => l.level === 'error')).toEqual([
      expect.objectContaining({
        msg: 'component did not stop before the deadline',
        component: 'stuck',
        deadlineMs: 50,
      }),
    ]);
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped', clean: false });
  });

  it('the deadline covers all stops together; those left when it passes are skipped and logged', async () => {
    vi.useFakeTimers();
    const { lifecycle, lines, ran } = setup(50);
    lifecycle.onStop('never-reached', () => {
      ran.push('never-reached');
    });
    lifecycle.onStop('stuck', never);
    lifecycle.onStop('slow', async () => {
      await sleep(20);
      ran.push('slow');
    });
    const result = lifecycle.stop('test');
    await vi.advanceTimersByTimeAsync(20);
    expect(ran).toEqual(['slow']);
    // 'stuck' gets only what is left of the 50 ms: 30 ms.
    await vi.advanceTimersByTimeAsync(29);
    expect(lines.some((l) => l.msg === 'stopped')).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBe(false);
    expect(ran).toEqual(['slow']);
    expect(lines.filter((l) => l.level === 'error').map((l) => [l.msg, l.component])).toEqual([
      ['component did not stop before the deadline', 'stuck'],
      ['stop deadline passed before this component was stopped', 'never-reached'],
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a slow stop that finishes within the deadline is clean', async () => {
    const { lifecycle, ran } = setup(1000);
    lifecycle.onStop('slow', async () => {
      await sleep(20);
      ran.push('slow');
    });
    await expect(lifecycle.stop('test')).resolves.toBe(true);
    expect(ran).toEqual(['slow']);
  });

  it('stop() twice returns the same promise and runs each stop once', async () => {
    const { lifecycle, lines } = setup();
    const calls = { a: 0, b: 0 };
    lifecycle.onStop('a', () => {
      calls.a += 1;
    });
    lifecycle.onStop('b', async () => {
      await sleep(5);
      calls.b += 1;
    });
    const first = lifecycle.stop('first');
    const second = lifecycle.stop('second');
    expect(second).toBe(first);
    await expect(first).resolves.toBe(true);
    const third = lifecycle.stop('third');
    expect(third).toBe(first);
    await expect(third).resolves.toBe(true);
    expect(calls).toEqual({ a: 1, b: 1 });
    expect(lines.filter((l) => l.msg === 'stopping').map((l) => l.reason)).toEqual(['first']);
  });

  it('a failed stop() stays failed on later calls', async () => {
    const { lifecycle } = setup();
    lifecycle.onStop('bad', () => {
      throw new Error('x');
    });
    await expect(lifecycle.stop('one')).resolves.toBe(false);
    await expect(lifecycle.stop('two')).resolves.toBe(false);
  });
});

describe('createLifecycle: stopOnSignals', () => {
  const signals = ['SIGTERM', 'SIGINT'] as const;
  type Listener = (...args: unknown[]) => void;

  /** Calls stopOnSignals and returns a function removing exactly the listeners it added. */
  function listen(lifecycle: Lifecycle, exit: (code: number) => void): () => void {
    const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
    lifecycle.stopOnSignals(exit);
    const added = signals.flatMap((s) =>
      process
        .listeners(s)
        .filter((l) => !before.get(s)?.has(l))
        .map((l) => [s, l as Listener] as const),
    );
    return () => {
      for (const [s, l] of added) process.removeListener(s, l);
    };
  }

  function exitSpy(): { exit: (code: number) => void; exited: Promise<number>; codes: number[] } {
    const codes: number[] = [];
    let resolve: (code: number) => void = () => {};
    const exited = new Promise<number>((r) => {
      resolve = r;
    });
    return {
      exit: (code) => {
        codes.push(code);
        resolve(code);
      },
      exited,
      codes,
    };
  }

  it('adds one listener for each of SIGTERM and SIGINT', () => {
    const { lifecycle } = setup();
    const counts = signals.map((s) => process.listenerCount(s));
    const cleanup = listen(lifecycle, () => {});
    try {
      expect(signals.map((s) => process.listenerCount(s))).toEqual(counts.map((c) => c + 1));
    } finally {
      cleanup();
    }
    expect(signals.map((s) => process.listenerCount(s))).toEqual(counts);
  });

  it.each(signals)('on %s stops everything, then exits 0 when clean', async (signal) => {
    const { lifecycle, lines, ran } = setup();
    lifecycle.onStop('a', () => {
      ran.push('a');
    });
    lifecycle.onStop('b', async () => {
      await sleep(5);
      ran.push('b');
    });
    const { exit, exited, codes } = exitSpy();
    const cleanup = listen(lifecycle, exit);
    try {
      process.emit(signal);
      await expect(exited).resolves.toBe(0);
      expect(codes).toEqual([0]);
      expect(ran).toEqual(['b', 'a']);
      expect(lines[0]).toMatchObject({ msg: 'stopping', reason: signal });
      // Exit happens only after the stops are done.
      expect(lines.at(-1)).toMatchObject({ msg: 'stopped', clean: true });
    } finally {
      cleanup();
    }
  });

  it('exits 1 when a stop fails', async () => {
    const { lifecycle, ran } = setup();
    lifecycle.onStop('ok', () => {
      ran.push('ok');
    });
    lifecycle.onStop('bad', () => {
      throw new Error('nope');
    });
    const { exit, exited, codes } = exitSpy();
    const cleanup = listen(lifecycle, exit);
    try {
      process.emit('SIGTERM');
      await expect(exited).resolves.toBe(1);
      expect(codes).toEqual([1]);
      expect(ran).toEqual(['ok']);
    } finally {
      cleanup();
    }
  });

  it('exits 1 when a stop misses the deadline', async () => {
    const { lifecycle } = setup(30);
    lifecycle.onStop('stuck', never);
    const { exit, exited } = exitSpy();
    const cleanup = listen(lifecycle, exit);
    try {
      process.emit('SIGINT');
      await expect(exited).resolves.toBe(1);
    } finally {
      cleanup();
    }
  });

  it('does not exit before a signal arrives', async () => {
    const { lifecycle } = setup();
    const exit = vi.fn();
    const cleanup = listen(lifecycle, exit);
    try {
      await sleep(10);
      expect(exit).not.toHaveBeenCalled();
    } finally {
      cleanup();
    }
  });
});
