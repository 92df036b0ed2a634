import { describe, expect, it } from 'vitest';
import { resumeUpgrade, runUpgrade } from '../../../services/kvupgrade/app/commands.ts';
import {
  ProgressNotReadError,
  ProgressNotRecordedError,
} from '../../../services/kvupgrade/app/progress-errors.ts';
import type { UpgradeProgress } from '../../../services/kvupgrade/domain/progress.ts';
import { createFakeCluster } from '../../helpers/kvupgrade-fake-cluster.ts';

const story = (events: readonly UpgradeProgress[]) =>
  events.filter((e) => e.kind === 'transition').map((e) => (e.member ? `${e.step}[${e.member}]` : e.step));
const turn = (m: string) => [
  `member-stopping[${m}]`,
  `member-stopped[${m}]`,
  `member-starting[${m}]`,
  `member-upgraded[${m}]`,
];
const WHY = 'kafka: no broker of 127.0.0.1:9092 has answered; publishing to kv.upgrade-progress was not done';

describe('kvupgrade when Kafka does not record its events (the leader is m2: m1, m3, then m2)', () => {
  it('stops before the next step once the wait is over, and resume finishes the run once Kafka answers', async () => {
    const cluster = createFakeCluster({ leader: 'm2' });
    cluster.loseKafka({ when: 'stop m1' });

    const stopped = await runUpgrade(cluster.deps, { allowAuth: false, runId: 'r1' }).catch(
      (e: unknown) => e,
    );
    expect(stopped).toBeInstanceOf(ProgressNotRecordedError);
    expect((stopped as Error).message).toBe(
      [
        'the run stopped: kv.upgrade-progress did not record its next event within 30 s, and no step is taken unless the event announcing it is recorded first',
        '  not recorded: member-stopped [m1]: m1 stopped in 0.00 s',
        '  last recorded: member-stopping [m1]: stopping m1 (SIGINT) (phase stopping)',
        `  why: ${WHY}`,
      ].join('\n'),
    );
    // m1 was stopped under a recorded announcement; it is not started again on 3.5 unrecorded.
    expect(cluster.log.at(-1)).toBe('stop m1');
    expect(cluster.notices).toEqual([
      `kv.upgrade-progress does not record; waiting up to 30 s before the next step (${WHY})`,
    ]);
    expect(story(cluster.events)).toEqual(['checks-passed', 'snapshot-saved', 'member-stopping[m1]']);

    cluster.restoreKafka();
    const resumed = await resumeUpgrade(cluster.deps);
    expect(resumed).toMatchObject({ resumed: true, state: { phase: 'completed' } });
    expect(story(cluster.events)).toEqual([
      'checks-passed',
      'snapshot-saved',
      'member-stopping[m1]',
      'resumed',
      ...turn('m1').slice(1),
      ...turn('m3'),
      ...turn('m2'),
      'all-members-upgraded',
      'cluster-version-updated',
    ]);
  });

  it('rides out a loss shorter than options.recordWaitSeconds: the same events, once each, when Kafka is back', async () => {
    const cluster = createFakeCluster({ leader: 'm2' });
    cluster.loseKafka({ when: 'stop m1', forMs: 2000 });

    const outcome = await runUpgrade(cluster.deps, { allowAuth: false, runId: 'r1' });
    expect(outcome).toMatchObject({ kind: 'finished', state: { phase: 'completed' } });
    expect(cluster.notices).toEqual([
      `kv.upgrade-progress does not record; waiting up to 30 s before the next step (${WHY})`,
      'recorded after 2.0 s; going on',
    ]);
    expect(story(cluster.events)).toEqual([
      'checks-passed',
      'snapshot-saved',
      ...turn('m1'),
      ...turn('m3'),
      ...turn('m2'),
      'all-members-upgraded',
      'cluster-version-updated',
    ]);
    expect(new Set(cluster.events.map((e) => e.event_id)).size).toBe(cluster.events.length);
  });

  it('does nothing when the events cannot be read: resume and run need the run they tell', async () => {
    const cluster = createFakeCluster({ leader: 'm2' });
    cluster.loseKafka();
    for (const command of [
      () => resumeUpgrade(cluster.deps),
      () => runUpgrade(cluster.deps, { allowAuth: false, runId: 'r1' }),
    ]) {
      const error = await command().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProgressNotReadError);
      expect((error as Error).message).toBe(
        'kv.upgrade-progress could not be read, so nothing was done: kafka: no broker of 127.0.0.1:9092 has answered; listing topics was not done',
      );
    }
    expect(cluster.log.filter((l) => /^(stop|start|snapshot|move) /.test(l))).toEqual([]);
    expect(cluster.events).toEqual([]);
  });
});
