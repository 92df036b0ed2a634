import { describe, expect, it } from 'vitest';
import { hexId, parseJsonLossless, uint64Text } from '../../../services/kvupgrade/adapters/lossless-json.ts';

describe('uint64 IDs in etcd JSON', () => {
  // Verbatim from `etcdctl endpoint status -w json` (reference, section 2.4).
  const etcdctl =
    '[{"Endpoint":"http://127.0.0.1:23792","Status":{"header":{"cluster_id":11352937356082580213,"member_id":18003949360126019154,"revision":24,"raft_term":2},"version":"3.4.23","dbSize":24576,"leader":18003949360126019154,"raftIndex":43}}]';

  it('keeps IDs above 2^53 exact where JSON.parse rounds them', () => {
    expect((JSON.parse(etcdctl) as { Status: { leader: number } }[])[0]!.Status.leader).toBe(
      18003949360126020000,
    );
    const [status] = parseJsonLossless(etcdctl) as {
      Status: { header: Record<string, unknown>; leader: unknown; raftIndex: unknown };
    }[];
    expect(status!.Status.leader).toBe('18003949360126019154');
    expect(status!.Status.header.cluster_id).toBe('11352937356082580213');
    expect(hexId(status!.Status.leader as string)).toBe('f9dae08dd46ec652');
  });

  it('leaves safe numbers, floats and strings alone', () => {
    expect(parseJsonLossless('{"revision":24,"took":0.0026,"id":"18003949360126019154","neg":-3}')).toEqual({
      revision: 24,
      took: 0.0026,
      id: '18003949360126019154',
      neg: -3,
    });
  });

  it('reads the gateway string form and the safe number form alike, and rejects what is not a uint64', () => {
    expect(uint64Text('18003949360126019154')).toBe('18003949360126019154');
    expect(uint64Text(24)).toBe('24');
    expect(uint64Text('18446744073709551616')).toBeUndefined(); // 2^64
    expect(uint64Text('-1')).toBeUndefined();
    expect(uint64Text(1.5)).toBeUndefined();
    expect(uint64Text(undefined)).toBeUndefined();
  });
});
