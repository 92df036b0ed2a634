import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { kafkaProtocolError } from '../../../shared/bus/client/failpoints.ts';
import { AppError } from '../../../shared/errors.ts';
import { silentLogger } from '../../../shared/logger.ts';
import { type ComponentStatus, createSupervisor, type Running } from '../../../shared/supervisor.ts';
import { memoryLogger } from '../../helpers/memory-logger.ts';

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

  it('tries a first start that fails on a retriable error again, reporting it restarting meanwhile; its tries are not restarts', async () => {
    const { logger, lines } = memoryLogger('warn');
    const component = fakeComponent();
    const start = vi
      .fn()
      .mockRejectedValueOnce(kafkaProtocolError('NOT_COORDINATOR'))
      .mockRejectedValueOnce(kafkaProtocolError('NOT_COORDINATOR'))
      .mockRejectedValueOnce(new AppError('UNAVAILABLE', 'kafka: the group coordinator is loading'))
      .mockResolvedValueOnce(component.running);
    const supervisor = createSupervisor({ ...options, logger, onGiveUp: vi.fn() });
    const changes: ComponentStatus[] = [];
    supervisor.onChange((_, status) => changes.push(status));

    await supervisor.supervise('persistence consumer', start);
    expect(supervisor.status('persistence consumer')).toMatchObject({
      state: 'restarting',
      reason: 'This is not the correct coordinator',
    });
    await vi.waitFor(() =>
      expect(supervisor.status('persistence consumer')).toEqual({ state: 'running', restarts: 0 }),
    );
    expect(start).toHaveBeenCalledTimes(4);
    expect(changes.at(-1)).toEqual({ state: 'running', restarts: 0 });
    // One line for the first failure, one per change of reason: not one per try.
    expect(lines.map((line) => line.msg)).toEqual([
      'component could not start yet; trying again',
      'component start failed',
    ]);
    await supervisor.stop();
  });

  it('gives up on a first start that keeps failing on a retriable error after giveUpAfterMs', async () => {
    const onGiveUp = vi.fn();
    const supervisor = createSupervisor({ ...options, giveUpAfterMs: 60, onGiveUp });
    await supervisor.supervise('judge', () =>
      Promise.reject(kafkaProtocolError('COORDINATOR_NOT_AVAILABLE')),
    );
    await vi.waitFor(() => expect(onGiveUp).toHaveBeenCalledOnce(), { timeout: 2_000 });
    expect(onGiveUp).toHaveBeenCalledWith('judge', 'The coordinator is not available');
    await supervisor.stop();
  });

  it('retryStep tries a step again on a retriable error, and rejects at once on another, or once it gives up', async () => {
    const supervisor = createSupervisor({ ...options, giveUpAfterMs: 100, onGiveUp: vi.fn() });
    const step = vi
      .fn()
      .mockRejectedValueOnce(kafkaProtocolError('LEADER_NOT_AVAILABLE'))
      .mockRejectedValueOnce(kafkaProtocolError('UNKNOWN_TOPIC_OR_PARTITION'))
      .mockResolvedValueOnce('topics created');
    await expect(supervisor.retryStep('creating the topics', step)).resolves.toBe('topics created');
    expect(step).toHaveBeenCalledTimes(3);

    const bad = vi.fn().mockRejectedValue(new AppError('INVALID_ARGUMENT', 'topic name too long'));
    await expect(supervisor.retryStep('creating the topics', bad)).rejects.toThrow('topic name too long');
    expect(bad).toHaveBeenCalledOnce();

    const never = vi.fn().mockRejectedValue(kafkaProtocolError('REQUEST_TIMED_OUT'));
    await expect(supervisor.retryStep('connecting the producer', never)).rejects.toThrow(
      'The request timed out',
    );
    expect(never.mock.calls.length).toBeGreaterThan(1);
    await supervisor.stop();
  });
});
