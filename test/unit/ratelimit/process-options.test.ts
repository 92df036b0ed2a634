// When the service starts itself again with its node options and MALLOC_ARENA_MAX, and with what.
import { describe, expect, it } from 'vitest';
import { restartWith } from '../../../services/ratelimit/wiring/process-options.ts';

const OPTIONS = '--max-semi-space-size=4 --heap-growing-percent=20';
const argv = ['/usr/bin/node', 'services/ratelimit/main.ts'];

describe('restartWith', () => {
  it('adds the options the process lacks before its own, and MALLOC_ARENA_MAX=2 unless set', () => {
    expect(restartWith(OPTIONS, { execArgv: ['--cpu-prof'], argv, env: { PORT: '1' } })).toEqual({
      args: [
        '--max-semi-space-size=4',
        '--heap-growing-percent=20',
        '--cpu-prof',
        'services/ratelimit/main.ts',
      ],
      env: { PORT: '1', MALLOC_ARENA_MAX: '2' },
    });
  });

  it('keeps a MALLOC_ARENA_MAX the environment sets', () => {
    expect(
      restartWith(OPTIONS, { execArgv: [], argv, env: { MALLOC_ARENA_MAX: '8' } })?.env.MALLOC_ARENA_MAX,
    ).toBe('8');
  });

  it('does not start again a process that runs with them', () => {
    const execArgv = ['--heap-growing-percent=20', '--max-semi-space-size=4'];
    expect(restartWith(OPTIONS, { execArgv, argv, env: { MALLOC_ARENA_MAX: '2' } })).toBeUndefined();
    expect(restartWith('', { execArgv: [], argv, env: { MALLOC_ARENA_MAX: '2' } })).toBeUndefined();
  });
});
