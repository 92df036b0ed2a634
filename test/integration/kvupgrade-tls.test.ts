import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import {
  etcdFailingOnSecondMember,
  progressEvents,
  rolledBackAtSecondStart,
  runKilledAtSecondStop,
  runKvupgrade,
  story,
} from '../helpers/etcd-kvupgrade.ts';
import { CLIENT_EXTENSIONS, makeCertificates, signedCertificate } from '../helpers/etcd-tls.ts';
import { putKey, readPrefix, startWriter } from '../helpers/etcd-writer.ts';

const infra = inject('infra');
let cluster: EtcdTestCluster;
let realTarget: string;

const versions = async (c: EtcdTestCluster) => Promise.all(c.members.map((m) => c.etcd.version(m.clientUrl)));

withEtcdCluster({ infra, basePort: 24010, tls: true }, (c) => {
  cluster = c;
  realTarget = c.bin.etcd35;
});

describe('kvupgrade on a 3.4.23 cluster with client and peer TLS and client certificate authentication', () => {
  it('the members refuse a client without a certificate', async () => {
    const bare = await fetch(`${cluster.members[0]!.clientUrl}/health`).catch((e: Error) => e);
    expect(bare).toBeInstanceOf(Error);
  });

  it('plan checks the certificates and that every member answers over TLS with them', async () => {
    const plan = await runKvupgrade(infra, ['plan', '--cluster', cluster.file]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(
      /\[ok\] tls: 5 certificates load \(tls\.ca CN=kvupgrade test CA, tls\.cert CN=kvupgrade\); the first to expire is .* on \d{4}-\d\d-\d\d; every member answers over TLS with them/,
    );
    expect(plan.stdout).toContain('[ok] health: all 3 endpoints answer /health true');
    expect(plan.stdout).toContain('[ok] quorum-read: a linearizable read succeeds through every member');
    expect(plan.stdout).toMatch(
      /\[ok\] processes: one running process per member, .*m1 pid \d+, m2 pid \d+, m3 pid \d+/,
    );
    expect(plan.stdout).toContain('verdict: ready to upgrade');
  });

  it('plan reports a client certificate expiring within 30 days, and refuses one the members do not trust', async () => {
    const certs = cluster.certs!;
    const short = await signedCertificate(
      certs.dir,
      'short-client',
      { cert: certs.ca, key: join(certs.dir, 'ca.key') },
      { cn: 'kvupgrade-short', days: 10, extensions: CLIENT_EXTENSIONS },
    );
    const expiring = await cluster.rewrite((raw) => {
      raw.tls = { ca: certs.ca, cert: short.cert, key: short.key };
    });
    const warned = await runKvupgrade(infra, ['plan', '--cluster', expiring.file]);
    expect(warned.code, warned.stdout).toBe(0);
    expect(warned.stdout).toMatch(
      /\[WARN\] tls: certificates expiring within 30 days: tls\.cert .*short-client\.crt \(CN=kvupgrade-short\) in 9 days/,
    );

    const other = await makeCertificates(join(cluster.dir, 'other-ca'));
    const untrusted = await cluster.rewrite((raw) => {
      raw.tls = { ca: certs.ca, cert: other.clientCert, key: other.clientKey };
    });
    const refused = await runKvupgrade(infra, ['plan', '--cluster', untrusted.file]);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain(
      `[REFUSE] health: unhealthy: m1 (${cluster.members[0]!.clientUrl}/health: `,
    );
    expect(refused.stdout).not.toContain('every member answers over TLS');

    const badKey = await cluster.rewrite((raw) => {
      raw.tls = { ca: certs.ca, cert: certs.clientCert, key: other.clientKey };
    });
    const mismatch = await runKvupgrade(infra, ['plan', '--cluster', badKey.file]);
    expect(mismatch.code).toBe(3);
    expect(mismatch.stdout).toMatch(
      /\[REFUSE\] tls: certificates that do not load: tls\.cert .*client\.crt: tls\.key .* is not the key of this certificate/,
    );

    // serverName: the member certificate names DNS:localhost (and IP:127.0.0.1), not etcd.example.
    const named = await cluster.rewrite((raw) => {
      raw.tls = { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey, serverName: 'localhost' };
    });
    expect((await runKvupgrade(infra, ['plan', '--cluster', named.file])).code).toBe(0);
    const misnamed = await cluster.rewrite((raw) => {
      raw.tls = { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey, serverName: 'etcd.example' };
    });
    const wrongName = await runKvupgrade(infra, ['plan', '--cluster', misnamed.file]);
    expect(wrongName.code).toBe(3);
    expect(wrongName.stdout).toContain(
      `[REFUSE] health: unhealthy: m1 (${cluster.members[0]!.clientUrl}/health: ERR_TLS_CERT_ALTNAME_INVALID)`,
    );

    cluster = await cluster.rewrite((raw) => {
      raw.tls = { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey };
    });
  });

  it('rolls back by itself over TLS when 3.5 fails on the second member', async () => {
    const failing = await etcdFailingOnSecondMember(cluster.dir, realTarget);
    const broken = await cluster.rewrite((raw) => {
      (raw.binaries as Record<string, string>).target = failing;
    });
    await putKey(cluster.members[0]!.clientUrl, 'before/upgrade', 'kept', cluster.tls);
    const run = await runKvupgrade(infra, ['run', '--cluster', broken.file]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/cluster etcd-\w+: rolled-back\n$/);
    expect(await versions(cluster)).toEqual(Array(3).fill({ server: '3.4.23', cluster: '3.4.0' }));
    for (const m of cluster.members)
      expect(Object.fromEntries(await readPrefix(m.clientUrl, 'before/', cluster.tls))).toEqual({
        'before/upgrade': 'kept',
      });
    const events = await progressEvents(infra, cluster.name);
    const [first, second] = events.find((e) => e.step === 'checks-passed')!.order;
    expect(story(events)).toEqual(rolledBackAtSecondStart(first!, second!));
    expect(events.find((e) => e.step === 'step-failed')!.error).toMatch(
      new RegExp(`^${second} is not running \\(exit code 2\\)`),
    );
    cluster = await cluster.rewrite((raw) => {
      (raw.binaries as Record<string, string>).target = realTarget;
    });
  });

  it('upgrades over TLS with a client writing through all endpoints, after the orchestrator was SIGKILLed and resumed', async () => {
    const endpoints = cluster.members.map((m) => m.clientUrl);
    const writer = startWriter(endpoints, { tls: cluster.tls });
    const killed = await runKilledAtSecondStop(infra, cluster.file);
    expect(killed.signal, killed.stdout + killed.stderr).toBe('SIGKILL');

    const resumed = await runKvupgrade(infra, ['resume', '--cluster', cluster.file]);
    const report = await writer.stop();
    expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
    expect(resumed.stdout).toMatch(/cluster etcd-\w+: completed\n$/);
    expect(await versions(cluster)).toEqual(Array(3).fill({ server: '3.5.16', cluster: '3.5.0' }));

    expect(report.acknowledged.length).toBeGreaterThan(20);
    expect(report.failed).toEqual([]);
    for (const endpoint of endpoints) {
      const stored = await readPrefix(endpoint, 'w/', cluster.tls);
      expect(report.acknowledged.filter((key) => stored.get(key) !== `v${Number(key.slice(2))}`)).toEqual([]);
    }
    const events = await progressEvents(infra, cluster.name);
    const steps = story(events);
    expect(steps.slice(-2)).toEqual(['all-members-upgraded', 'cluster-version-updated']);
    expect(steps).toContain('resumed');
    // The snapshot was taken over TLS by etcdctl with the client certificate.
    const snapshots = events.filter((e) => e.step === 'snapshot-saved');
    expect(snapshots.at(-1)!.snapshot?.path).toMatch(/backups\/etcd-\w+-\w+\.db$/);
    expect(events.some((e) => e.step === 'leadership-moved')).toBe(true);
  });

  it('restores the snapshot over TLS after the point of no return', async () => {
    const [m1] = cluster.members.map((m) => m.clientUrl) as [string];
    await putKey(m1, 'after/upgrade', 'lost by the restore', cluster.tls);
    const restored = await runKvupgrade(infra, ['rollback', '--yes', '--cluster', cluster.file]);
    expect(restored.code, `${restored.stdout}\n${restored.stderr}`).toBe(0);
    expect(restored.stdout).toMatch(/cluster etcd-\w+: restored\n$/);
    expect(await versions(cluster)).toEqual(Array(3).fill({ server: '3.4.23', cluster: '3.4.0' }));
    for (const m of cluster.members) {
      expect(await cluster.etcd.health(m.clientUrl)).toBe(true);
      expect((await readPrefix(m.clientUrl, 'after/', cluster.tls)).size).toBe(0);
      expect((await readPrefix(m.clientUrl, 'w/', cluster.tls)).size).toBeGreaterThan(0);
    }
    await putKey(m1, 'after/restore', 'ok', cluster.tls);
  });
});
