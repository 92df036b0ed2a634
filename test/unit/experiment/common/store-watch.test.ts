import { describe, expect, it, vi } from 'vitest';
import type { ObservationStore } from '../../../../services/experiment/common/ports.ts';
import { watchStore } from '../../../../services/experiment/common/store-watch.ts';
import { AppError } from '../../../../shared/errors.ts';

function fakeStore() {
  let down = false;
  const answer = async <T>(value: T): Promise<T> => {
    if (down) throw new AppError('UNAVAILABLE', 'PostgreSQL at db:5432 unavailable for query: ECONNREFUSED');
    return value;
  };
  const store: ObservationStore = {
    apply: () => answer(0),
    query: () => answer([]),
    scan: () => answer(0),
    curves: () => answer([]),
    trialStatus: () => answer(undefined),
    knowsTrial: () => answer(false),
    ping: () => answer(undefined),
    close: async () => {},
  };
  return { store, setDown: (value: boolean) => (down = value) };
}

describe('watchStore', () => {
  it('is lost after an UNAVAILABLE answer, says so with the reason, and notices the return by itself', async () => {
    const fake = fakeStore();
    const watch = watchStore(fake.store, { name: 'PostgreSQL', probeMs: 5 });
    const changes = vi.fn();
    watch.onChange(changes);
    expect(watch.unreachable('reading t')).toBeUndefined();
    fake.setDown(true);
    await expect(watch.store.query({ trialName: 't' })).rejects.toThrow('ECONNREFUSED');
    expect(watch.unreachable('reading t')).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(
        /^PostgreSQL has not answered since \S+ \(PostgreSQL at db:5432 unavailable for query: ECONNREFUSED\); reading t was not done$/,
      ),
    });
    fake.setDown(false);
    await vi.waitFor(() => expect(watch.unreachable('reading t')).toBeUndefined());
    expect(changes).toHaveBeenCalledTimes(2);
    watch.close();
  });

  it('does not count a refusal of the data itself (INTERNAL) as the store being lost', async () => {
    const fake = fakeStore();
    const watch = watchStore(
      { ...fake.store, apply: async () => Promise.reject(new AppError('INTERNAL', 'null value in column')) },
      { name: 'PostgreSQL' },
    );
    await expect(watch.store.apply([])).rejects.toThrow('null value');
    expect(watch.unreachable('x')).toBeUndefined();
    watch.close();
  });

  it('counts what calls elsewhere found: a loss, then an answer', () => {
    const fake = fakeStore();
    const watch = watchStore(fake.store, { name: 'PostgreSQL' });
    const changes = vi.fn();
    watch.onChange(changes);
    watch.observe(new AppError('UNAVAILABLE', 'PostgreSQL at db:5432 unavailable for apply: ECONNREFUSED'));
    expect(watch.unreachable('reading t')?.message).toMatch(
      /^PostgreSQL has not answered since \S+ \(PostgreSQL at db:5432 unavailable for apply: ECONNREFUSED\); reading t was not done$/,
    );
    watch.observe(new AppError('INTERNAL', 'null value in column'));
    watch.observe();
    expect(watch.unreachable('reading t')).toBeUndefined();
    watch.close();
  });
});
