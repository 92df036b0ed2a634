import { describe, expect, it } from 'vitest';
import { beforeDeadline } from '../../../shared/deadline.ts';

describe('beforeDeadline', () => {
  it('gives the work’s value, or its error, when it ends in time', async () => {
    await expect(beforeDeadline(Promise.resolve(7), Date.now() + 10_000, () => 'late')).resolves.toBe(7);
    const failure = new Error('broken');
    await expect(beforeDeadline(Promise.reject(failure), Date.now() + 10_000, () => 'late')).rejects.toBe(
      failure,
    );
  });

  it('fails with UNAVAILABLE and the message once the deadline has passed', async () => {
    const never = new Promise<number>(() => {});
    await expect(
      beforeDeadline(never, Date.now() + 20, () => 'x was not read in time'),
    ).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: 'x was not read in time',
    });
    await expect(beforeDeadline(never, Date.now() - 1, () => 'already late')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
  });
});
