import { describe, expect, it, vi } from 'vitest';
import { componentChecks, watchDependencies } from '../../../shared/health-checks.ts';
import { silentLogger } from '../../../shared/logger.ts';
import { createHealthService } from '../../../shared/rpc/health.ts';
import { createSupervisor, type Running } from '../../../shared/supervisor.ts';

describe('watchDependencies', () => {
  it('marks NOT_SERVING only the services a failing dependency matters to, and the server as a whole', async () => {
    const health = createHealthService();
    let storeUp = true;
    const stop = await watchDependencies({
      health,
      services: ['', 'api.v1.beta1.DBManager', 'api.v1.beta1.Suggestion'],
      checks: [
        {
          name: 'store',
          services: ['api.v1.beta1.DBManager'],
          check: async () => {
            if (!storeUp) throw new Error('connection refused');
          },
        },
      ],
      intervalMs: 10,
      timeoutMs: 100,
      logger: silentLogger,
    });
    expect(health.status('api.v1.beta1.DBManager')).toBe('SERVING');
    storeUp = false;
    await vi.waitFor(() => expect(health.status('api.v1.beta1.DBManager')).toBe('NOT_SERVING'));
    expect(health.status('')).toBe('NOT_SERVING');
    expect(health.status('api.v1.beta1.Suggestion')).toBe('SERVING');
    storeUp = true;
    await vi.waitFor(() => expect(health.status('')).toBe('SERVING'));
    stop();
  });

  it('checks again at once when a change is announced, not only at its interval', async () => {
    const health = createHealthService();
    let up = true;
    let announce: () => void = () => {};
    const stop = await watchDependencies({
      health,
      services: [''],
      checks: [
        {
          name: 'kafka',
          check: async () => {
            if (!up) throw new Error('lost');
          },
        },
      ],
      intervalMs: 60_000,
      timeoutMs: 100,
      logger: silentLogger,
      changes: [
        (listener) => {
          announce = listener;
          return () => {};
        },
      ],
    });
    up = false;
    announce();
    await vi.waitFor(() => expect(health.status('')).toBe('NOT_SERVING'), { timeout: 500 });
    stop();
  });

  it('reports a supervised component being restarted as a failing dependency, with its reason', async () => {
    const health = createHealthService();
    let fail: (error: Error) => void = () => {};
    const supervisor = createSupervisor({
      logger: silentLogger,
      initialDelayMs: 60_000,
      onGiveUp: () => {},
    });
    await supervisor.supervise(
      'persistence consumer',
      async (): Promise<Running> => ({
        ended: new Promise((_, reject) => {
          fail = reject;
        }),
        stop: async () => {},
      }),
    );
    const checks = componentChecks(supervisor, [{ name: 'persistence consumer', services: ['db'] }]);
    const stop = await watchDependencies({
      health,
      services: ['', 'db', 'other'],
      checks,
      intervalMs: 60_000,
      timeoutMs: 100,
      logger: silentLogger,
      changes: [(listener) => supervisor.onChange(listener)],
    });
    expect(health.status('db')).toBe('SERVING');
    fail(new Error('The coordinator is not aware of this member'));
    await vi.waitFor(() => expect(health.status('db')).toBe('NOT_SERVING'));
    expect(health.status('other')).toBe('SERVING');
    await expect(checks[0]!.check()).rejects.toThrow(
      'persistence consumer is restarting: The coordinator is not aware of this member',
    );
    stop();
    await supervisor.stop();
  });
});
