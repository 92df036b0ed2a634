import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { type EtcdTestCluster, waitForHealthy } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import { progressEvents, runKvupgrade } from '../helpers/etcd-kvupgrade.ts';

const infra = inject('infra');
let cluster: EtcdTestCluster;

/** Plan must change nothing: same member processes, no event on the topic. */
async function pids(c: EtcdTestCluster): Promise<string[]> {
  const dir = join(c.dir, 'run');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.pid')).sort();
  return Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
}

async function plan(c: EtcdTestCluster, ...extra: string[]) {
  const before = await pids(c);
  const result = await runKvupgrade(infra, ['plan', '--cluster', c.file, ...extra]);
  expect(result.stderr).toBe('');
  expect(await pids(c)).toEqual(before);
  return result;
}

const gateway = async (c: EtcdTestCluster, path: string, body: object, token?: string) => {
  const response = await fetch(`${c.members[0]!.clientUrl}${path}`, {
    method: 'POST',
    headers: token ? { Authorization: token } : {},
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json;
};

withEtcdCluster({ infra, basePort: 23510 }, (c) => {
  cluster = c;
});

describe('kvupgrade plan refuses, with a clear verdict and no side effect', () => {
  it('passes a healthy cluster and prints the order, snapshot, point of no return and metric renames', async () => {
    const result = await plan(cluster);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('verdict: ready to upgrade');
    expect(result.stdout).toMatch(/followers first, the leader last: m\d -> m\d -> m\d/);
    expect(result.stdout).toMatch(/save a snapshot from the leader m\d to .*backups\/etcd-\w+-<run id>\.db/);
    expect(result.stdout).toContain('point of no return: the cluster version becomes 3.5');
    expect(result.stdout).toContain('etcd_debugging_mvcc_put_total -> etcd_mvcc_put_total');
    expect(await progressEvents(infra, cluster.name)).toEqual([]);
  });

  it('refuses when a member is unhealthy', async () => {
    const m3 = cluster.spec.members[2]!;
    await cluster.driver.stop(m3, 5000);
    try {
      const result = await plan(cluster);
      expect(result.code).toBe(3);
      expect(result.stdout).toContain(
        `[REFUSE] health: unhealthy: m3 (${cluster.members[2]!.clientUrl}/health: ECONNREFUSED)`,
      );
      expect(result.stdout).toContain(
        '[REFUSE] quorum-tolerance: 3 members (2 healthy), quorum 2: stopping one member loses the quorum',
      );
      expect(result.stdout).toContain('verdict: REFUSED');
    } finally {
      await cluster.driver.start(m3, cluster.bin.etcd34, '3.4');
      await waitForHealthy(cluster.etcd, cluster.members);
    }
  });

  it('refuses mixed versions (a member already on 3.5)', async () => {
    const m1 = cluster.spec.members[0]!;
    await cluster.driver.stop(m1, 5000);
    await cluster.driver.start(m1, cluster.bin.etcd35, '3.5');
    try {
      await waitForHealthy(cluster.etcd, cluster.members);
      const result = await plan(cluster);
      expect(result.code).toBe(3);
      expect(result.stdout).toMatch(
        /\[REFUSE\] same-server-version: members run different versions \(m1 3\.5\.16, m2 3\.4\.23, m3 3\.4\.23\): an upgrade was left half done; use resume or rollback/,
      );
    } finally {
      await cluster.driver.stop(m1, 5000);
      await cluster.driver.start(m1, cluster.bin.etcd34, '3.4');
      await waitForHealthy(cluster.etcd, cluster.members);
    }
  });

  it('with every member down, says of each check that had no answer that it is unknown, and refuses', async () => {
    await Promise.all(cluster.spec.members.map((m) => cluster.driver.stop(m, 5000)));
    try {
      const result = await plan(cluster);
      expect(result.code).toBe(3);
      expect(result.stdout).toContain(
        '[REFUSE] auth: unknown: no member answered a read without credentials, so whether auth is enabled is not known',
      );
      expect(result.stdout).toContain('[REFUSE] cluster-version: unknown: no member answered /version');
      expect(result.stdout).toContain('[REFUSE] same-server-version: unknown: no member answered /version');
      expect(result.stdout).toContain('[REFUSE] membership: unknown: no member answered member list');
      expect(result.stdout).toContain(
        '[REFUSE] leader: unknown: /metrics (etcd_server_is_leader) answered on no member',
      );
      // What passes was read from the cluster file, the data folders and the binaries, not from a member.
      const passed = [...result.stdout.matchAll(/^ {2}\[ok\] ([\w-]+):/gm)].map((m) => m[1]);
      expect(passed).toEqual([
        'v2-data',
        'removed-flags',
        'binaries',
        'binaries',
        'binaries',
        'binaries',
        'v3-database',
      ]);
    } finally {
      await Promise.all(cluster.spec.members.map((m) => cluster.driver.start(m, cluster.bin.etcd34, '3.4')));
      await waitForHealthy(cluster.etcd, cluster.members);
    }
  });

  it('refuses auth unless allowed, explaining the hazard; allowed with credentials it warns', async () => {
    await gateway(cluster, '/v3/auth/user/add', { name: 'root', password: 'rootpw' });
    await gateway(cluster, '/v3/auth/user/grant', { user: 'root', role: 'root' });
    await gateway(cluster, '/v3/auth/enable', {});

    const refused = await plan(cluster);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(
      /\[REFUSE\] auth: auth is enabled: etcd does not support a rolling upgrade from 3\.4 with auth/,
    );
    expect(refused.stdout).toContain('stored on the 3.4 members with an EMPTY password');
    expect(refused.stdout).toContain('Refused; run again with --allow-auth');

    const noCredentials = await plan(cluster, '--allow-auth');
    expect(noCredentials.code).toBe(3);
    expect(noCredentials.stdout).toContain(
      '[REFUSE] auth: auth is enabled and --allow-auth was given, but the cluster file has no auth.user / auth.passwordFile',
    );

    const passwordFile = join(cluster.dir, 'root.password');
    await writeFile(passwordFile, 'rootpw\n');
    const withAuth = await cluster.rewrite((raw) => {
      raw.auth = { user: 'root', passwordFile };
    });
    const allowed = await plan(withAuth, '--allow-auth');
    expect(allowed.code, allowed.stdout).toBe(0);
    expect(allowed.stdout).toMatch(/\[WARN\] auth: auth is enabled/);
    expect(allowed.stdout).toContain('[ok] quorum-read: a linearizable read succeeds through every member');
  });
});

describe('kvupgrade plan on a member configured with a flag 3.5 removed', () => {
  let capnslog: EtcdTestCluster;
  withEtcdCluster(
    { infra, basePort: 23540, extraFlags: (i) => (i === 1 ? ['--logger=capnslog'] : ['--logger=zap']) },
    (c) => {
      capnslog = c;
    },
  );

  it('refuses, naming the member, the flag and its replacement', async () => {
    const result = await plan(capnslog);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(
      '[REFUSE] removed-flags: m2 uses --logger=capnslog, removed in 3.5 (3.5.16 exits 1: "--logger=capnslog is removed in v3.5"); replace it with --logger=zap --log-outputs=stderr',
    );
    expect(result.stdout.match(/\[REFUSE\]/g)).toHaveLength(1);
  });
});
