import { describe, expect, inject, it } from 'vitest';
import type { EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import { memberUpgrade, progressEvents, runKvupgrade, story } from '../helpers/etcd-kvupgrade.ts';
import { putKey, readPrefix, startWriter, type WriterReport } from '../helpers/etcd-writer.ts';

// One plain cluster walks the paths etcd users take after 3.4: refused 3.5.16 -> 3.6, the patch
// 3.5.16 -> 3.5.35, 3.5.35 -> 3.6.16, the online downgrade back to 3.5.35, then 3.5.35 -> 3.6.16 ->
// 3.7.3 as one route; a writer goes through every endpoint during each.
const infra = inject('infra');
let cluster: EtcdTestCluster;
// --snapshot-count=100: a 3.6 member snapshots soon after 3.6 takes over, which 3.7 needs (hop-steps.ts).
const flags = () => ['--logger=zap', '--log-outputs=stderr', '--snapshot-count=100'];
withEtcdCluster(
  { infra, basePort: 24410, release: '3.5.16', target: '3.6.16', tools: '3.5.35', extraFlags: flags },
  (c) => {
    cluster = c;
  },
);

const versions = (c: EtcdTestCluster) => Promise.all(c.members.map((m) => c.etcd.version(m.clientUrl)));
const etcdOf = (version: string) => `${cluster.bin.dirOf(version)}/etcd`;
const binaries =
  (current: string, target: string, via: readonly string[] = []) =>
  (raw: Record<string, unknown>) => {
    const b = raw.binaries as Record<string, unknown>;
    b.current = etcdOf(current);
    b.target = etcdOf(target);
    if (via.length > 0) b.via = via.map((v) => ({ version: v, etcd: etcdOf(v) }));
    else delete b.via;
  };

/** Every acknowledged write is there with its value through every member, and none failed. */
async function expectNoLoss(report: WriterReport): Promise<void> {
  expect(report.acknowledged.length).toBeGreaterThan(20);
  expect(report.failed).toEqual([]);
  for (const m of cluster.members) {
    const stored = await readPrefix(m.clientUrl, 'w/');
    expect(report.acknowledged.filter((key) => stored.get(key) !== `v${Number(key.slice(2))}`)).toEqual([]);
  }
}

/** `run` with a writer through every endpoint; the run's own events. */
async function runWithWriter(prefix: string) {
  const writer = startWriter(
    cluster.members.map((m) => m.clientUrl),
    { prefix },
  );
  const run = await runKvupgrade(infra, ['run', '--cluster', cluster.file]);
  return { run, report: await writer.stop() };
}

describe('kvupgrade paths on a real 3-member cluster: patch, 3.5 -> 3.6, online downgrade, 3.6 -> 3.7', () => {
  it('refuses 3.5.16 -> 3.6.16, naming the 3.5 patch to take first', async () => {
    const plan = await runKvupgrade(infra, ['plan', '--cluster', cluster.file]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(3);
    expect(plan.stdout).toContain(
      '[REFUSE] route: 3.5.16 is older than 3.5.32, the oldest 3.5 patch that may upgrade to 3.6 (',
    );
    expect(plan.stdout).toContain('upgrade to 3.5.32 or a later 3.5 patch first: name one in binaries.via');
    expect(plan.stdout).toContain('etcd-io/etcd#19557');
    const run = await runKvupgrade(infra, ['run', '--cluster', cluster.file]);
    expect(run.code).toBe(3);
    expect(await versions(cluster)).toEqual(Array(3).fill({ server: '3.5.16', cluster: '3.5.0' }));
  });

  it('upgrades the patch 3.5.16 -> 3.5.35 member by member, losing no write', async () => {
    cluster = await cluster.rewrite(binaries('3.5.16', '3.5.35'));
    const { run, report } = await runWithWriter('w/');
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/cluster etcd-\w+: completed\n$/);
    expect(await versions(cluster)).toEqual(Array(3).fill({ server: '3.5.35', cluster: '3.5.0' }));
    await expectNoLoss(report);
    const events = await progressEvents(infra, cluster.name);
    const [leader] = events.filter((e) => e.step === 'checks-passed').map((e) => e.leader);
    const followers = cluster.members.map((m) => m.name).filter((n) => n !== leader);
    expect(story(events)).toEqual([
      'checks-passed',
      'snapshot-saved',
      ...followers.flatMap(memberUpgrade),
      ...memberUpgrade(leader!),
      'all-members-upgraded',
      'cluster-version-updated',
    ]);
    expect(events.findLast((e) => e.step === 'route')?.message).toMatch(
      /^pass: 3\.5\.16 -> 3\.5\.35: 1 hop \(patch/,
    );
  });

  it('upgrades 3.5.35 -> 3.6.16 after etcdutl check v2store on each stopped member, losing no write', async () => {
    cluster = await cluster.rewrite(binaries('3.5.35', '3.6.16'));
    // The file now names 3.5.35 as current: a rollback of the patch run has no 3.5.16 to start.
    const back = await runKvupgrade(infra, ['rollback', '--cluster', cluster.file]);
    expect(back.code, `${back.stdout}\n${back.stderr}`).toBe(3);
    expect(back.stdout).toMatch(
      /^rollback of run \w+ puts etcd 3\.5\.16 back on its members, but \S+\/etcd is etcd 3\.5\.35: name the 3\.5\.16 binary in binaries\.current \(or binaries\.via\) and run rollback again; nothing was changed$/m,
    );
    expect(await versions(cluster)).toEqual(Array(3).fill({ server: '3.5.35', cluster: '3.5.0' }));
    const { run, report } = await runWithWriter('w/');
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(await versions(cluster)).toEqual(
      Array(3).fill({ server: '3.6.16', cluster: '3.6.0', storage: '3.6.0' }),
    );
    await expectNoLoss(report);
    const events = (await progressEvents(infra, cluster.name)).filter(
      (e) => e.run_id === runIdOf(run.stdout),
    );
    expect(events.filter((e) => e.step === 'v2store-checked').map((e) => e.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^m\d: No custom content found in both v2store and WAL records/),
      ]),
    );
    expect(story(events).slice(-2)).toEqual(['all-members-upgraded', 'cluster-version-updated']);
  });

  it('rolls 3.6.16 back to 3.5.35 online (etcd downgrade), keeping the writes made after the upgrade', async () => {
    await putKey(cluster.members[0]!.clientUrl, 'after/upgrade', 'kept');
    const writer = startWriter(
      cluster.members.map((m) => m.clientUrl),
      { prefix: 'd/' },
    );
    const back = await runKvupgrade(infra, ['rollback', '--cluster', cluster.file]);
    const report = await writer.stop();
    expect(back.code, `${back.stdout}\n${back.stderr}`).toBe(0);
    expect(back.stdout).toMatch(/cluster etcd-\w+: downgraded\n$/);
    // The job is ended before rollback returns: an upgrade right after must not find it on.
    expect(back.stdout).toMatch(/downgrade-job-ended.*every member runs 3\.5: the downgrade job is over/);
    expect(await versions(cluster)).toEqual(Array(3).fill({ server: '3.5.35', cluster: '3.5.0' }));
    expect(report.failed).toEqual([]);
    for (const m of cluster.members) {
      expect(Object.fromEntries(await readPrefix(m.clientUrl, 'after/'))).toEqual({
        'after/upgrade': 'kept',
      });
      const stored = await readPrefix(m.clientUrl, 'd/');
      expect(report.acknowledged.filter((key) => !stored.has(key))).toEqual([]);
    }
    const events = await progressEvents(infra, cluster.name);
    const steps = story(events);
    const from = steps.lastIndexOf('downgrade-requested');
    expect(steps.slice(from)).toEqual([
      'downgrade-requested',
      'downgrade-enabled',
      ...cluster.members.map(() => expect.stringMatching(/^member-downgraded\[m\d\]$/)),
      'downgrade-finished',
    ]);
    expect(events.find((e) => e.step === 'downgrade-enabled')!.observed_version).toBe('3.5.0');
  });

  it('upgrades 3.5.35 -> 3.6.16 -> 3.7.3 as one route, a snapshot before each hop, losing no write', async () => {
    cluster = await cluster.rewrite(binaries('3.5.35', '3.7.3', ['3.6.16']));
    const { run, report } = await runWithWriter('r/');
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(await versions(cluster)).toEqual(
      Array(3).fill({ server: '3.7.3', cluster: '3.7.0', storage: '3.7.0' }),
    );
    expect(report.failed).toEqual([]);
    const stored = await readPrefix(cluster.members[2]!.clientUrl, 'r/');
    expect(report.acknowledged.filter((key) => !stored.has(key))).toEqual([]);
    const events = (await progressEvents(infra, cluster.name)).filter(
      (e) => e.run_id === runIdOf(run.stdout),
    );
    const steps = story(events);
    expect(steps.filter((s) => s === 'snapshot-saved')).toHaveLength(2);
    expect(steps).toContain('hop-completed');
    expect(steps).toContain('hop-checks-passed');
    expect(events.at(-1)).toMatchObject({ route: ['3.5.35', '3.6.16', '3.7.3'], hop: 1, phase: 'completed' });
  });
});

/** The run id `run` printed in its events (`... checks-passed` lines carry it in status, not here): the newest. */
function runIdOf(stdout: string): string | undefined {
  return /snapshot saved from \w+ and verified: \S+-(\w+)\.db/.exec(stdout)?.[1];
}
