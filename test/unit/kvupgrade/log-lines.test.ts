import { describe, expect, it } from 'vitest';
import { classifyLogLine } from '../../../services/kvupgrade/domain/log-lines.ts';

// Lines as etcd 3.4.23 and 3.5.16 wrote them (reference, sections 3 and 5).
describe('member log lines', () => {
  it('turns the upgrade milestones of zap JSON into events, with their time', () => {
    expect(
      classifyLogLine(
        '{"level":"info","ts":"2026-11-22T04:55:34.111217Z","caller":"membership/cluster.go:584","msg":"published local member to cluster through raft","local-member-id":"f9dae08dd46ec652"}',
      ),
    ).toEqual({
      step: 'member-published',
      message: 'published local member to cluster through raft',
      at: Date.parse('2026-11-22T04:55:34.111217Z'),
    });
    expect(
      classifyLogLine(
        '{"ts":"2026-11-22T04:53:52.317Z","level":"info","msg":"leadership transfer finished","local-member-id":"f9dae08dd46ec652","old-leader-member-id":"f9dae08dd46ec652","new-leader-member-id":"b2aa5900dcb60ffa","took":"100.301037ms"}',
      ),
    ).toMatchObject({
      step: 'leadership-transfer-finished',
      message: 'leadership transferred to b2aa5900dcb60ffa (took 100.301037ms)',
    });
    expect(
      classifyLogLine(
        '{"level":"info","ts":"2026-11-22T04:55:34.111237Z","msg":"cluster version is updated","cluster-version":"3.5"}',
      ),
    ).toMatchObject({
      step: 'cluster-version-finished',
      version: '3.5',
    });
  });

  it('reads the new version of 3.4 "updated cluster version" despite its duplicate "from" key', () => {
    const line =
      '{"level":"info","ts":"2026-11-22T04:56:11.074Z","caller":"membership/cluster.go:546","msg":"updated cluster version","cluster-id":"9d8dbc5ffa908af5","local-member-id":"b446de67ed22b3c2","from":"3.4","from":"3.5"}';
    expect(classifyLogLine(line)).toMatchObject({
      step: 'updated-cluster-version',
      message: 'updated cluster version from 3.4 to 3.5',
      version: '3.5',
    });
    const on35 =
      '{"level":"info","ts":"2026-11-22T04:55:34.111134Z","msg":"updated cluster version","from":"3.4","to":"3.5"}';
    expect(classifyLogLine(on35)).toMatchObject({
      message: 'updated cluster version from 3.4 to 3.5',
      version: '3.5',
    });
  });

  it('reports the failures that stop a member from starting', () => {
    expect(
      classifyLogLine(
        '{"level":"fatal","ts":"2026-11-22T04:56:11.074Z","msg":"invalid downgrade; server version is lower than determined cluster version","current-server-version":"3.4.23","determined-cluster-version":"3.5"}',
      ),
    ).toMatchObject({
      step: 'invalid-downgrade',
      message: 'invalid downgrade: 3.4.23 is lower than the cluster version 3.5',
    });
    expect(
      classifyLogLine(
        '{"level":"warn","ts":"2026-11-22T04:56:32.219989Z","msg":"failed to verify flags","error":"--logger=capnslog is removed in v3.5"}',
      ),
    ).toMatchObject({
      step: 'flags-rejected',
      error: '--logger=capnslog is removed in v3.5',
    });
    expect(classifyLogLine('flag provided but not defined: -debug')).toEqual({
      step: 'flags-rejected',
      message: 'etcd refused the flag -debug',
      error: 'flag provided but not defined: -debug',
    });
  });

  it('understands 3.4 capnslog text', () => {
    expect(
      classifyLogLine(
        '2026-11-22 04:58:28.953125 W | etcdserver: member 234b1dd274de38d5 has a higher version 3.5.16',
      ),
    ).toEqual({
      step: 'leader-found-higher-version',
      message: '3.4 leader sees member 234b1dd274de38d5 on 3.5.16',
      version: '3.5.16',
    });
    expect(
      classifyLogLine(
        '2026-11-22 04:58:23.955213 I | etcdserver: published {Name:m1 ClientURLs:[http://127.0.0.1:23790]} to cluster aee9f4c37b7c3d52',
      ),
    ).toMatchObject({
      step: 'member-published',
      message: 'published m1 to the cluster',
    });
    expect(
      classifyLogLine(
        '2026-11-22 04:58:24.1 I | etcdserver: 391aff628cbb0c24 finished leadership transfer from 391aff628cbb0c24 to 234b1dd274de38d5 (took 100.938282ms)',
      ),
    ).toMatchObject({ step: 'leadership-transfer-finished' });
  });

  it('ignores everything else, including broken JSON and grpc noise', () => {
    expect(classifyLogLine('{"level":"info","msg":"added member"}')).toBeUndefined();
    expect(classifyLogLine('{"msg":"published local member')).toBeUndefined();
    expect(
      classifyLogLine('WARNING: 2026/11/22 04:55:30 [core] grpc: addrConn.createTransport failed to connect'),
    ).toBeUndefined();
    expect(classifyLogLine('')).toBeUndefined();
  });
});
