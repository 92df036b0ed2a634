import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../shared/logger.ts';
import { type ComponentStatus, createSupervisor, type Running } from '../../../shared/supervisor.ts';

/** A component whose run ends when the test says so. */
function fakeComponent() {
  let fail: (error: Error) => void = () => {};
  const stop = vi.fn(async () => {});
  const running: Running = {
    ended: new Promise<never>((_, reject) => {
      fail = reject;
    }),
    stop,
  };
  return { running, fail: (error: Error) => fail(error), stop };
}

const options = { logger: silentLogger, initialDelayMs: 5, maxDelayMs: 20 };

describe('createSupervisor', () => {
  it('restarts a component that stops on an error, reporting it restarting until it runs again', async () => {
    const registry = new Registry();
    const first = fakeComponent();
    const second = fakeComponent();
    const start = vi.fn().mockResolvedValueOnce(first.running).mockResolvedValueOnce(second.running);
    const supervisor = createSupervisor({ ...options, registry, onGiveUp: vi.fn() });
    const changes: Array<[string, ComponentStatus]> = [];
    supervisor.onChange((name, status) => changes.push([name, status]));

    await supervisor.supervise('persistence consumer', start);
    expect(supervisor.status('persistence consumer')).toEqual({ state: 'running', restarts: 0 });

    first.fail(new Error('The coordinator is not aware of this member'));
    await vi.waitFor(() =>
      expect(supervisor.status('persistence consumer')).toEqual({ state: 'running', restarts: 1 }),
    );
    expect(start).toHaveBeenCalledTimes(2);
    expect(changes.map(([, s]) => s.state)).toEqual(['running', 'restarting', 'running']);
    expect(changes[1]?.[1].reason).toBe('The coordinator is not aware of this member');
    expect(supervisor.status('persistence consumer')?.restarts).toBe(1);
    const metrics = await registry.metrics();
    expect(metrics).toContain('component_running{component="persistence consumer"} 1');
    expect(metrics).toContain('component_restarts_total{component="persistence consumer"} 1');
    await supervisor.stop();
    expect(second.stop).toHaveBeenCalledOnce();
  });

  it('retries a failing start with growing delays and gives up once, after giveUpAfterMs', async () => {
    const first = fakeComponent();
    const start = vi
      .fn()
      .mockResolvedValueOnce(first.running)
      .mockRejectedValue(new Error('kafka: no broker'));
    const onGiveUp = vi.fn();
    const supervisor = createSupervisor({ ...options, giveUpAfterMs: 80, onGiveUp });
    await supervisor.supervise('follower', start);
    first.fail(new Error('lost'));
    await vi.waitFor(() => expect(onGiveUp).toHaveBeenCalledOnce(), { timeout: 2_000 });
    expect(onGiveUp).toHaveBeenCalledWith('follower', 'kafka: no broker');
    expect(supervisor.status('follower')).toMatchObject({ state: 'restarting', reason: 'kafka: no broker' });
    expect(start.mock.calls.length).toBeGreaterThan(2);
    await supervisor.stop();
  });

  it('rejects when the first start fails, and does not restart a component stopped on purpose', async () => {
    const supervisor = createSupervisor({ ...options, onGiveUp: vi.fn() });
    await expect(supervisor.supervise('x', () => Promise.reject(new Error('cannot join')))).rejects.toThrow(
      'cannot join',
    );
    const component = fakeComponent();
    const start = vi.fn().mockResolvedValue(component.running);
    await supervisor.supervise('y', start);
    await supervisor.stop();
    component.fail(new Error('closed while stopping'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(start).toHaveBeenCalledOnce();
    expect(supervisor.status('y')?.state).toBe('stopped');
  });
});
