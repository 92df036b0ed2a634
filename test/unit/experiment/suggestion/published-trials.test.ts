import { describe, expect, it } from 'vitest';
import { PublishedTrials } from '../../../../services/experiment/suggestion/published-trials.ts';
import { trial } from './fixtures.ts';

const a = (condition: string, lr = '0.1') => trial('exp-a', { lr }, condition, { accuracy: '0.5' });
const b = (condition: string) => trial('exp-b', { lr: '0.2' }, condition);

describe('PublishedTrials', () => {
  it('lists every trial, complete, for an experiment it has published nothing of', () => {
    const published = new PublishedTrials();
    expect(published.toList('exp', [a('SUCCEEDED'), b('RUNNING')])).toEqual({
      complete: true,
      trials: [
        { name: 'exp-a', condition: 'SUCCEEDED', assignments: [{ name: 'lr', value: '0.1' }] },
        { name: 'exp-b', condition: 'RUNNING', assignments: [{ name: 'lr', value: '0.2' }] },
      ],
    });
  });

  it('after an acknowledgement lists only the new trials and those whose condition or parameters changed', () => {
    const published = new PublishedTrials();
    const first = published.toList('exp', [a('SUCCEEDED'), b('RUNNING')]);
    published.acknowledge('exp', first.trials);
    // Observations are not listed: a new metric value alone is no change.
    expect(
      published.toList('exp', [
        trial('exp-a', { lr: '0.1' }, 'SUCCEEDED', { accuracy: '0.9' }),
        b('RUNNING'),
      ]),
    ).toEqual({
      complete: false,
      trials: [],
    });
    const c = trial('exp-c', { lr: '0.3' }, '');
    const next = published.toList('exp', [a('SUCCEEDED', '0.15'), b('SUCCEEDED'), c]);
    expect(next.complete).toBe(false);
    expect(next.trials.map((t) => [t.name, t.condition, t.assignments[0]?.value])).toEqual([
      ['exp-a', 'SUCCEEDED', '0.15'],
      ['exp-b', 'SUCCEEDED', '0.2'],
      ['exp-c', '', '0.3'],
    ]);
  });

  it('lists again what was never acknowledged (a publish that failed)', () => {
    const published = new PublishedTrials();
    published.acknowledge('exp', published.toList('exp', [a('RUNNING')]).trials);
    const failed = published.toList('exp', [a('SUCCEEDED'), b('RUNNING')]);
    expect(failed.trials.map((t) => t.name)).toEqual(['exp-a', 'exp-b']);
    // Not acknowledged: the next call lists both again.
    expect(published.toList('exp', [a('SUCCEEDED'), b('RUNNING')]).trials.map((t) => t.name)).toEqual([
      'exp-a',
      'exp-b',
    ]);
  });

  it('remembers what the events said in the order they were acknowledged, whatever the requests', () => {
    const published = new PublishedTrials();
    published.acknowledge('exp', published.toList('exp', [a('RUNNING')]).trials);
    // Two calls under way at once, both against the same memory.
    const older = published.toList('exp', [a('RUNNING'), b('RUNNING')]);
    const newer = published.toList('exp', [a('SUCCEEDED'), b('RUNNING')]);
    published.acknowledge('exp', older.trials);
    published.acknowledge('exp', newer.trials);
    // The topic last said exp-a SUCCEEDED (newer) and exp-b RUNNING (both).
    expect(published.toList('exp', [a('SUCCEEDED'), b('RUNNING')]).trials).toEqual([]);
  });

  it('keeps experiments apart and forgets the least recently used beyond its capacity', () => {
    const published = new PublishedTrials({ experiments: 2, trials: 100 });
    for (const name of ['x', 'y']) published.acknowledge(name, published.toList(name, [a('RUNNING')]).trials);
    const again = published.toList('x', [a('SUCCEEDED')]);
    expect(again.complete).toBe(false);
    published.acknowledge('x', again.trials); // x used: y is the oldest now
    published.acknowledge('z', published.toList('z', [a('RUNNING')]).trials);
    expect(published.size).toBe(2);
    expect(published.toList('y', [a('RUNNING')]).complete).toBe(true);
    expect(published.toList('x', [a('SUCCEEDED')])).toEqual({ complete: false, trials: [] });
    expect(published.toList('z', [a('RUNNING')])).toEqual({ complete: false, trials: [] });
  });

  it('forgets the least recently used experiments beyond its trials, never the one just told', () => {
    const published = new PublishedTrials({ experiments: 10, trials: 3 });
    const many = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => trial(`${prefix}-${i}`, { lr: '0.1' }, 'RUNNING'));
    published.acknowledge('x', published.toList('x', many('x', 2)).trials);
    published.acknowledge('y', published.toList('y', many('y', 1)).trials);
    expect(published.trialCount).toBe(3);
    // Two more trials of y: x (the least recently used) goes.
    published.acknowledge('y', published.toList('y', many('y', 3)).trials);
    expect([published.size, published.trialCount]).toEqual([1, 3]);
    expect(published.toList('x', many('x', 2)).complete).toBe(true);
    // One experiment larger than the bound stays: it is the one in use.
    published.acknowledge('z', published.toList('z', many('z', 5)).trials);
    expect([published.size, published.trialCount]).toEqual([1, 5]);
    expect(published.toList('z', many('z', 5))).toEqual({ complete: false, trials: [] });
  });
});
