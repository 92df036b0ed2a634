import { describe, expect, inject, it } from 'vitest';
import type { EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import { memberUpgrade, progressEvents, runKvupgrade, story } from '../helpers/etcd-kvupgrade.ts';
import { putKey, readPrefix } from '../helpers/etcd-writer.ts';

const infra = inject('infra');
let cluster: EtcdTestCluster;
let firstRun: string;

// As the report that asked for it: a TLS lab upgraded, then built again from scratch under its name.
withEtcdCluster({ infra, basePort: 24150, tls: true }, (c) => {
  cluster = c;
});

const versions = () => Promise.all(cluster.members.map((m) => cluster.etcd.version(m.clientUrl)));
const kvupgrade = (...args: string[]) => runKvupgrade(infra, [...args, '--cluster', cluster.file]);
const checksPassed = async () =>
  (await progressEvents(infra, cluster.name)).filter((e) => e.step === 'checks-passed');
const ISO = '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z';

describe('kvupgrade on a cluster name with a completed upgrade in its history', () => {
  it('upgrades the cluster, and answers a second run "already upgraded", doing nothing', async () => {
    for (let i = 0; i < 5; i++) await putKey(cluster.members[0]!.clientUrl, `first/${i}`, 'x', cluster.tls);
    const run = await kvupgrade('run');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/cluster etcd-\w+: completed\n$/);
    firstRun = (await checksPassed())[0]!.run_id!;

    const events = (await progressEvents(infra, cluster.name)).length;
    const again = await kvupgrade('run');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(
        `^cluster ${cluster.name} is already upgraded: every member runs 3\\.5\\.16, cluster version 3\\.5\\.0; nothing to do\\n` +
          `  upgraded by run ${firstRun}, which completed at ${ISO}\\n$`,
      ),
    );
    expect(await progressEvents(infra, cluster.name)).toHaveLength(events);
  });

  it('built again (new data folders, 3.4): status speaks of no run, rollback --yes refuses and changes nothing', async () => {
    await cluster.rebuild();
    await putKey(cluster.members[0]!.clientUrl, 'second/0', 'kept', cluster.tls);
    const events = (await progressEvents(infra, cluster.name)).length;
    const why =
      `on an earlier incarnation of the cluster \\(data folders made anew: m1, m2, m3; revision \\d+ is below \\d+, ` +
      'where that run began; cluster version 3\\.4\\.0 now, 3\\.5 when that run completed\\)';

    const status = await kvupgrade('status');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(
        `^cluster ${cluster.name}: no run recorded for the cluster as it is now\\n` +
          `  last run ${firstRun} completed at ${ISO}, ${why}\\n` +
          '  next: kvupgrade plan, then run\\n',
      ),
    );

    const rollback = await kvupgrade('rollback', '--yes');
    expect(rollback.code, rollback.stderr).toBe(3);
    expect(rollback.stdout).toMatch(
      new RegExp(
        `^rollback refused: the last run of cluster ${cluster.name}, ${firstRun}, completed at ${ISO} ${why}\\. ` +
          `Its snapshot \\S+/backups/${cluster.name}-${firstRun}\\.db holds that cluster's data, not this one's, and is not restored\\. ` +
          'Nothing was changed: no run of the cluster as it is now is recorded, so there is nothing to roll back; ' +
          'to bring that data back anyway, restore the snapshot by hand \\(etcdutl snapshot restore\\)\\.\\n$',
      ),
    );
    expect(await versions()).toEqual(Array(3).fill({ server: '3.4.23', cluster: '3.4.0' }));
    expect(
      Object.fromEntries(await readPrefix(cluster.members[2]!.clientUrl, 'second/', cluster.tls)),
    ).toEqual({
      'second/0': 'kept',
    });
    expect(await progressEvents(infra, cluster.name)).toHaveLength(events);
  });

  it('run on the cluster built again starts a new run, naming the previous one, and completes it', async () => {
    const run = await kvupgrade('run');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toContain('not allowed');
    const runs = (await checksPassed()).map((e) => e.run_id);
    expect(runs).toHaveLength(2);
    const [, secondRun] = runs;
    expect(secondRun).not.toBe(firstRun);
    expect(run.stdout).toMatch(
      new RegExp(
        ` note previous-run: previous run ${firstRun} of cluster ${cluster.name} completed at ${ISO}, on an earlier incarnation of the cluster \\(data folders made anew: m1, m2, m3; .*\\); starting run ${secondRun}\\n`,
      ),
    );
    expect(run.stdout).toMatch(/cluster etcd-\w+: completed\n$/);
    expect(await versions()).toEqual(Array(3).fill({ server: '3.5.16', cluster: '3.5.0' }));

    const events = await progressEvents(infra, cluster.name);
    const upgrades = events.filter((e) => e.step === 'checks-passed').map((e) => e.order);
    expect(story(events)).toEqual(
      upgrades.flatMap((order) => [
        'checks-passed',
        'snapshot-saved',
        ...order.flatMap(memberUpgrade),
        'all-members-upgraded',
        'cluster-version-updated',
      ]),
    );
    const status = await kvupgrade('status');
    expect(status.stdout).toMatch(new RegExp(`^cluster ${cluster.name}: completed\\n  run ${secondRun} `));
  });
});
