import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEtcdCluster, type EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { runKvupgradeThroughNpm } from '../helpers/etcd-kvupgrade.ts';

const infra = inject('infra');
const EXAMPLE = join(import.meta.dirname, '..', '..', 'services', 'kvupgrade', 'example', 'cluster.yaml');
/** The example's members: client and peer ports on 127.0.0.1. */
const EXAMPLE_PORTS = [
  [2379, 2380],
  [22379, 22380],
  [32379, 32380],
] as const;

let cluster: EtcdTestCluster;
/** Where the user keeps their copy of the example, and runs kvupgrade from. */
let mine: string;

/** The example as a user edits it: addresses, data folders, binaries and folders put in; nothing else. */
function edited(example: string, c: EtcdTestCluster): string {
  let text = example;
  c.members.forEach((m, i) => {
    const [client, peer] = EXAMPLE_PORTS[i]!;
    text = text
      .replaceAll(`http://127.0.0.1:${client}`, m.clientUrl)
      .replaceAll(`http://127.0.0.1:${peer}`, m.peerUrl)
      .replaceAll(`/var/lib/etcd/${m.name}`, m.dataDir);
  });
  return text
    .replaceAll('/opt/etcd-v3.5.16/etcdctl', c.bin.etcdctl)
    .replaceAll('/opt/etcd-v3.5.16/etcdutl', c.bin.etcdutl)
    .replaceAll('/opt/etcd-v3.5.16/etcd', c.bin.etcd35)
    .replaceAll('/opt/etcd-v3.4.23/etcd', c.bin.etcd34)
    .replaceAll('/var/backups/etcd', join(c.dir, 'backups'))
    .replaceAll('/var/run/kvupgrade', join(c.dir, 'run'));
}

beforeAll(async () => {
  const created = await createEtcdCluster({ infra, basePort: 24250 });
  const text = edited(await readFile(EXAMPLE, 'utf8'), created);
  mine = join(created.dir, 'mine');
  await mkdir(mine);
  await writeFile(join(mine, 'cluster.yaml'), text);
  // The members run exactly what the edited example says they run.
  cluster = await created.rewrite((raw) => {
    for (const key of Object.keys(raw)) delete raw[key];
    Object.assign(raw, yaml.load(text));
  });
  await cluster.start();
});

afterAll(async () => {
  await cluster?.destroy();
});

describe('the example cluster file shipped with kvupgrade', () => {
  it('is accepted by plan once its addresses are edited, read from the folder the user ran npm in', async () => {
    const result = await runKvupgradeThroughNpm(infra, ['plan', '--cluster', 'cluster.yaml'], mine);
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).not.toContain('[REFUSE]');
    expect(result.stdout).toContain('verdict: ready to upgrade');
    expect(result.stdout).toMatch(
      /\[ok\] processes: one running process per member, started with the cluster file's flags: m1 pid \d+, m2 pid \d+, m3 pid \d+/,
    );
  });

  it('names a relative cluster file that is not there with the folder it was looked for in', async () => {
    const result = await runKvupgradeThroughNpm(infra, ['plan', '--cluster', 'other.yaml'], mine);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `kvupgrade: cluster file other.yaml (${join(mine, 'other.yaml')}): no such file\n`,
    );
  });
});
