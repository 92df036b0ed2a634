import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { startPersistenceThread } from '../../../../services/experiment/dbmanager/adapters/persistence-thread.ts';
import type { PersistenceThreadConfig } from '../../../../services/experiment/dbmanager/adapters/persistence-thread-protocol.ts';
import { silentLogger } from '../../../../shared/logger.ts';
import { createSupervisor } from '../../../../shared/supervisor.ts';

const entry = new URL('../../../fixtures/experiment/persistence-thread-fixture.mjs', import.meta.url);
/** The fixture reads only its behaviour from the configuration. */
const config = (behaviour: string) => ({ behaviour }) as unknown as PersistenceThreadConfig;

describe('startPersistenceThread', () => {
  it('runs until stopped, passing on how the store answers and the thread’s counters and gauges', async () => {
    const registry = new Registry();
    const observeStore = vi.fn();
    const thread = await startPersistenceThread({
      config: config('serve'),
      logger: silentLogger,
      registry,
      observeStore,
      entry,
    });
    await vi.waitFor(() => expect(observeStore).toHaveBeenCalledTimes(2));
    expect(observeStore.mock.calls[0]![0]).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'PostgreSQL at db:5432 unavailable for apply',
    });
    expect(observeStore.mock.calls[1]).toEqual([undefined]);
    await vi.waitFor(async () =>
      expect(await registry.metrics()).toContain('bus_events_consumed_total{topic="t",group="g"} 3'),
    );
    await vi.waitFor(async () => expect(await registry.metrics()).toContain('experiment_fixture_depth 7'));
    await thread.stop();
    let ended: unknown = 'pending';
    thread.ended.catch((error: unknown) => (ended = error));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ended).toBe('pending');
  });

  it('ends with the failure the thread reports', async () => {
    const thread = await startPersistenceThread({ config: config('fail'), logger: silentLogger, entry });
    await expect(thread.ended).rejects.toThrow(
      'persistence thread: The coordinator is not aware of this member',
    );
    await thread.stop();
  });

  it('ends when the thread exits unasked', async () => {
    const thread = await startPersistenceThread({ config: config('exit'), logger: silentLogger, entry });
    await expect(thread.ended).rejects.toThrow('persistence thread exited (code 3)');
  });

  it('fails to start with the reason the thread gives', async () => {
    await expect(
      startPersistenceThread({ config: config('refuse-start'), logger: silentLogger, entry }),
    ).rejects.toThrow('persistence thread: PostgreSQL at db:5432 unavailable for open: ECONNREFUSED');
  });

  it('terminates a thread that does not stop within the deadline', async () => {
    const thread = await startPersistenceThread({
      config: config('deaf'),
      logger: silentLogger,
      entry,
      stopDeadlineMs: 50,
    });
    const started = performance.now();
    await thread.stop();
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('is started again by the supervisor when it dies, and reported as restarting meanwhile', async () => {
    const registry = new Registry();
    const behaviours = ['exit', 'serve'];
    const supervisor = createSupervisor({
      logger: silentLogger,
      registry,
      initialDelayMs: 5,
      onGiveUp: vi.fn(),
    });
    const states: string[] = [];
    supervisor.onChange((_, status) => states.push(status.state));
    await supervisor.supervise('persistence consumer', () =>
      startPersistenceThread({ config: config(behaviours.shift()!), logger: silentLogger, entry }),
    );
    await vi.waitFor(() =>
      expect(supervisor.status('persistence consumer')).toEqual({ state: 'running', restarts: 1 }),
    );
    expect(states).toEqual(['running', 'restarting', 'running']);
    expect(await registry.metrics()).toContain(
      'component_restarts_total{component="persistence consumer"} 1',
    );
    await supervisor.stop();
  });
});
