import { describe, expect, it } from 'vitest';
import {
  type Incarnation,
  incarnationDifferences,
  type ObservedCluster,
} from '../../../services/kvupgrade/domain/incarnation.ts';

const then: Incarnation = {
  clusterId: '11352937356082580213',
  revision: 57,
  members: ['m1', 'm2', 'm3'].map((name, i) => ({
    name,
    memberId: String(1000 + i),
    dataDir: `/var/lib/etcd/${name}`,
    dataDirId: `${100 + i}@1795000000000`,
  })),
};

const observed = (
  change: (i: Incarnation) => Incarnation = (i) => i,
  cluster = '3.5.0',
): ObservedCluster => ({
  incarnation: change(then),
  versions: then.members.map((m) => ({
    name: m.name,
    server: cluster === '3.5.0' ? '3.5.16' : '3.4.23',
    cluster,
  })),
});
const members = (i: Incarnation, change: (m: Incarnation['members'][number]) => object) => ({
  ...i,
  members: i.members.map((m) => ({ ...m, ...change(m) })),
});

describe('incarnationDifferences', () => {
  it('finds none for the same cluster, further on', () => {
    const later = observed((i) => ({ ...i, revision: 90 }));
    expect(incarnationDifferences({ phase: 'completed', incarnation: then }, later)).toEqual([]);
  });

  it('names new IDs, moved and new data folders, and a revision gone back', () => {
    const rebuilt = observed(
      (i) => ({
        ...members(i, (m) => ({
          memberId: m.name === 'm1' ? '77' : m.memberId,
          dataDir: m.name === 'm3' ? '/srv/etcd/m3' : m.dataDir,
          dataDirId: 'new',
        })),
        clusterId: '9',
        revision: 3,
      }),
      '3.4.0',
    );
    expect(incarnationDifferences({ phase: 'completed', incarnation: then }, rebuilt)).toEqual([
      "cluster ID 9 (that run's: 11352937356082580213)",
      'new member IDs for m1',
      'data folders moved: m3 /srv/etcd/m3 (was /var/lib/etcd/m3)',
      'data folders made anew: m1, m2',
      'revision 3 is below 57, where that run began',
      'cluster version 3.4.0 now, 3.5 when that run completed',
    ]);
  });

  it('tells a cluster rebuilt with the same flags (same IDs, same folders) by its new folders', () => {
    const rebuilt = observed((i) => ({ ...members(i, () => ({ dataDirId: 'new' })), revision: 80 }), '3.4.0');
    expect(incarnationDifferences({ phase: 'rolled-back', incarnation: then }, rebuilt)).toEqual([
      'data folders made anew: m1, m2, m3',
    ]);
  });

  it('takes nothing unknown as evidence: members that do not answer, drivers that cannot tell', () => {
    const silent = observed((i) => ({
      clusterId: undefined,
      revision: undefined,
      members: i.members.map((m) => ({ ...m, memberId: undefined, dataDirId: undefined })),
    }));
    expect(
      incarnationDifferences({ phase: 'completed', incarnation: then }, { ...silent, versions: [] }),
    ).toEqual([]);
  });

  it('knows a completed run was on 3.5, even from events recorded before incarnations', () => {
    expect(
      incarnationDifferences({ phase: 'completed', incarnation: undefined }, observed(undefined, '3.4.0')),
    ).toEqual(['cluster version 3.4.0 now, 3.5 when that run completed']);
    expect(
      incarnationDifferences({ phase: 'rolled-back', incarnation: undefined }, observed(undefined, '3.4.0')),
    ).toEqual([]);
  });

  it('names another set of members', () => {
    const grown = observed((i) => ({
      ...i,
      members: [...i.members, { name: 'm4', memberId: '5', dataDir: '/d/m4', dataDirId: undefined }],
    }));
    expect(incarnationDifferences({ phase: 'completed', incarnation: then }, grown)).toEqual([
      "members m1, m2, m3, m4 (that run's: m1, m2, m3)",
    ]);
  });
});
