import { describe, expect, it } from 'vitest';
import type { GateDeps } from '../../../services/kvupgrade/app/deps.ts';
import {
  confirmStartable,
  confirmStopped,
  waitMemberHealthy,
} from '../../../services/kvupgrade/app/gates.ts';
import { validateClusterSpec } from '../../../services/kvupgrade/domain/cluster-spec.ts';
import type { EtcdClient, MemberDriver } from '../../../services/kvupgrade/ports.ts';

const spec = (() => {
  const outcome = validateClusterSpec(
    {
      cluster: 'c',
      binaries: { current: '/a', target: '/b', etcdctl: '/c', etcdutl: '/d' },
      backupDir: '/bk',
      driver: { kind: 'local', runDir: '/run' },
      members: ['m1', 'm2'].map((name, i) => ({
        name,
        clientUrl: `http://127.0.0.1:${2379 + i}`,
        peerUrl: `http://127.0.0.1:${2389 + i}`,
        dataDir: `/d/${name}`,
        flags: [
          `--name=${name}`,
          `--data-dir=/d/${name}`,
          `--advertise-client-urls=http://127.0.0.1:${2379 + i}`,
          `--initial-advertise-peer-urls=http://127.0.0.1:${2389 + i}`,
        ],
      })),
      options: { pollIntervalMs: 10 },
    },
    '/',
  );
  if (!outcome.ok) throw new Error(outcome.problems.join('; '));
  return outcome.spec;
})();
const m1 = spec.members[0]!;

/** A scripted world: a fake clock advanced by sleep, a process and listening ports per step. */
function world(script: { running: boolean[]; open: string[][]; versions?: string[] }) {
  let t = 0;
  let step = 0;
  const at = <T>(list: T[]) => list[Math.min(step, list.length - 1)]!;
  const etcd = {
    accepting: async (url: string) => at(script.open).includes(url),
    health: async () => true,
    version: async () => ({ server: at(script.versions ?? ['3.5.16']), cluster: '3.4.0' }),
    quorumRead: async () => ({ revision: 5 }),
    status: async () => ({ memberId: '1', leaderId: '1', revision: 5, raftIndex: 1, version: '' }),
  } as unknown as EtcdClient;
  const driver = {
    status: async () => ({ running: at(script.running) }),
    tailLogs: async () => [],
  } as unknown as MemberDriver;
  const deps: GateDeps = {
    spec,
    etcd,
    driver,
    clock: { now: () => t },
    sleep: async (ms) => {
      t += ms;
      step++;
    },
  };
  return { deps, steps: () => step };
}

describe('a stop is confirmed only when the process is gone and both ports are free', () => {
  it('waits while the peer port is still held after the process is gone', async () => {
    const { deps, steps } = world({
      running: [true, false],
      open: [[m1.clientUrl, m1.peerUrl], [m1.peerUrl], []],
    });
    await confirmStopped(deps, m1, 1000);
    expect(steps()).toBe(2);
  });

  it('fails naming what is still there', async () => {
    const { deps } = world({ running: [false], open: [[m1.clientUrl]] });
    await expect(confirmStopped(deps, m1, 100)).rejects.toThrow(
      'm1 is not confirmed stopped after 100 ms: client port http://127.0.0.1:2379 still accepts connections (another process holds it?)',
    );
    const { deps: running } = world({ running: [true], open: [[]] });
    await expect(confirmStopped(running, m1, 100)).rejects.toThrow(
      'm1 is not confirmed stopped after 100 ms: its process still runs',
    );
  });

  it('a start is refused while a port of the member accepts connections', async () => {
    const { deps } = world({ running: [false], open: [[m1.peerUrl]] });
    await expect(confirmStartable(deps, m1)).rejects.toThrow(
      'not starting m1: http://127.0.0.1:2389 already accepts connections',
    );
    const { deps: free } = world({ running: [false], open: [[]] });
    await expect(confirmStartable(free, m1)).resolves.toBeUndefined();
  });
});

describe('a start is confirmed only when the new process answers as the expected version', () => {
  it('waits for the exact version when it is known', async () => {
    const { deps, steps } = world({ running: [true], open: [[]], versions: ['3.5.15', '3.5.15', '3.5.16'] });
    await expect(waitMemberHealthy(deps, m1, '3.5', 1000, '3.5.16')).resolves.toEqual({ version: '3.5.16' });
    expect(steps()).toBe(2);
    const { deps: never } = world({ running: [true], open: [[]], versions: ['3.4.23'] });
    await expect(waitMemberHealthy(never, m1, '3.5', 50, '3.5.16')).rejects.toThrow(
      'm1 not healthy within 50 ms: reports 3.4.23, waiting for 3.5.16',
    );
  });
});
