// The model-fitting algorithms in suggestion threads: the same replies as the inline use case, bad
// input answered with its status and message from the thread, the event loop free for other
// calls during a fit, and a closing pool that finishes what runs and refuses what waits.
import { type ServiceError, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GetSuggestionsReply__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { GetSuggestionsRequest__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { SuggestionClient } from '../../../../proto/gen/api/v1/beta1/Suggestion.ts';
import {
  createSuggestionThreads,
  type SuggestionThreads,
} from '../../../../services/experiment/suggestion/adapters/suggestion-threads.ts';
import { ALGORITHMS } from '../../../../services/experiment/suggestion/registry.ts';
import { suggest } from '../../../../services/experiment/suggestion/suggest.ts';
import { memoryLogger } from '../../../helpers/memory-logger.ts';
import { type SuggestionServer, startSuggestionServer } from '../../../helpers/suggestion-server.ts';
import { experiment, param, request, trial } from './fixtures.ts';

const PARAMETERS = [
  param('x', 'DOUBLE', { min: '-2', max: '2' }),
  param('y', 'DOUBLE', { min: '-2', max: '2' }),
  param('z', 'DOUBLE', { min: '0', max: '1' }),
];

/** `n` completed trials of a smooth loss at points spread by a fixed recurrence (no randomness). */
function history(n: number) {
  return Array.from({ length: n }, (_, i) => {
    const x = -2 + 4 * ((i * 0.618034) % 1);
    const y = -2 + 4 * ((i * 0.414214) % 1);
    const z = (i * 0.732051) % 1;
    const loss = (x - 0.5) ** 2 + (y + 0.3) ** 2 + Math.sin(6 * z);
    return trial(`t-${i}`, { x: String(x), y: String(y), z: String(z) }, 'SUCCEEDED', { loss: String(loss) });
  });
}

const boRequest = (n: number, settings: Record<string, string> = {}): GetSuggestionsRequest__Output =>
  request(
    experiment({
      name: `bo-${n}`,
      algorithm: 'bayesianoptimization',
      parameters: PARAMETERS,
      type: 'MINIMIZE',
      metric: 'loss',
      settings,
    }),
    history(n),
    1,
  );

const randomRequest = request(
  experiment({
    name: 'other',
    algorithm: 'random',
    parameters: PARAMETERS,
    type: 'MINIMIZE',
    metric: 'loss',
  }),
  [],
  1,
);

let threads: SuggestionThreads;
let server: SuggestionServer;
let client: SuggestionClient;

beforeAll(async () => {
  const { logger } = memoryLogger();
  threads = createSuggestionThreads({ size: 1, logger });
  server = await startSuggestionServer({ logger, producer: { publish: async () => {} }, threads });
  client = server.client;
});

afterAll(async () => {
  await server.stop();
  await threads.close();
});

const call = (req: GetSuggestionsRequest__Output) =>
  new Promise<GetSuggestionsReply__Output>((resolve, reject) =>
    client.GetSuggestions(req, (error, reply) => (error ? reject(error) : resolve(reply!))),
  );

describe('suggestion threads', () => {
  it('answer a bayesianoptimization call exactly as the inline use case does', async () => {
    const req = boRequest(40);
    const reply = await call(req);
    const inline = suggest(req, ALGORITHMS).reply;
    expect(reply.parameter_assignments.map((p) => p.assignments)).toEqual(
      inline.parameter_assignments!.map((p) => p.assignments),
    );
    expect(reply.parameter_assignments[0]!.assignments.map((a) => a.name)).toEqual(['x', 'y', 'z']);
  });

  it('send back a bad setting found in the thread as INVALID_ARGUMENT with its message', async () => {
    const error = (await call(boRequest(20, { acq_func: 'XYZ' })).catch((e: unknown) => e)) as ServiceError;
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toContain('acq_func');
  });

  it('leave the event loop free: a random call sent during a fit is answered before the fit ends', async () => {
    const order: string[] = [];
    const fit = call(boRequest(150)).then(() => order.push('bayesianoptimization'));
    // The fit has reached the thread once the server's event loop is free again.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const other = call(randomRequest).then(() => order.push('random'));
    await Promise.all([fit, other]);
    expect(order).toEqual(['random', 'bayesianoptimization']);
  });

  it('on close, finish the running call and refuse the waiting ones with UNAVAILABLE', async () => {
    const { logger } = memoryLogger();
    const pool = createSuggestionThreads({ size: 1, logger });
    const running = pool.run(boRequest(60));
    const waiting = pool.run(boRequest(61));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const closed = pool.close();
    const refused = await waiting.catch((e: unknown) => e);
    expect((refused as { code?: string }).code).toBe('UNAVAILABLE');
    expect((await running).reply.parameter_assignments).toHaveLength(1);
    await closed;
    await expect(pool.run(boRequest(10))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe('a suggestion thread that exits while computing', () => {
  const entry = new URL('../../../fixtures/experiment/exiting-suggestion-thread.mjs', import.meta.url);

  it('fails its call with INTERNAL, and the next call gets a new thread', async () => {
    const { logger, lines } = memoryLogger();
    const pool = createSuggestionThreads({ size: 1, logger, entry });
    try {
      await expect(pool.run(boRequest(10))).rejects.toMatchObject({
        code: 'INTERNAL',
        message: expect.stringContaining('suggestion worker exited (code 3)'),
      });
      expect(pool.threads()).toBe(0);
      expect(lines.some((line) => line.msg === 'suggestion thread exited; replaced when next needed')).toBe(
        true,
      );
      const next = pool.run(boRequest(11));
      expect(pool.threads()).toBe(1);
      await expect(next).rejects.toMatchObject({ code: 'INTERNAL' });
    } finally {
      await pool.close();
    }
  });

  it('does not hold close() forever when it dies during the shutdown', async () => {
    const { logger } = memoryLogger();
    const pool = createSuggestionThreads({ size: 1, logger, entry });
    const running = pool.run(boRequest(10)).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await pool.close();
    expect(await running).toMatchObject({ code: 'INTERNAL' });
    expect(pool.threads()).toBe(0);
  });
});

describe('suggestion threads on demand', () => {
  it('start no thread until a call needs one, and stop it after the idle time', async () => {
    const { logger } = memoryLogger();
    // Long enough that a thread finishing first is not retired while a loaded machine boots the
    // second (a thread's start is hundreds of milliseconds there).
    const pool = createSuggestionThreads({ size: 2, logger, idleMs: 2_000 });
    try {
      expect(pool.threads()).toBe(0);
      const first = await pool.run(boRequest(12));
      expect(first.reply.parameter_assignments).toHaveLength(1);
      expect(pool.threads()).toBe(1);
      // Two calls at once use both threads (a thread starts when the call is queued).
      const both = Promise.all([pool.run(boRequest(13)), pool.run(boRequest(14))]);
      expect(pool.threads()).toBe(2);
      await both;
      await vi.waitFor(() => expect(pool.threads()).toBe(0), { timeout: 10_000, interval: 100 });
      // A call after the threads stopped starts one again.
      expect((await pool.run(boRequest(15))).reply.parameter_assignments).toHaveLength(1);
      expect(pool.threads()).toBe(1);
    } finally {
      await pool.close();
    }
    expect(pool.threads()).toBe(0);
  });
});
