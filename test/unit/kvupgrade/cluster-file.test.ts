import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadClusterFile } from '../../../services/kvupgrade/adapters/cluster-file.ts';
import { DEFAULT_OPTIONS, initialCluster } from '../../../services/kvupgrade/domain/cluster-spec.ts';
import { AppError } from '../../../shared/errors.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'kvupgrade');
const fixture = (name: string) => join(FIXTURES, name);

async function problemsOf(name: string): Promise<string> {
  const error = await loadClusterFile(fixture(name)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('INVALID_ARGUMENT');
  return (error as AppError).message;
}

describe('cluster file', () => {
  it('reads a local-driver file: paths from its folder, URLs normalized, both flag forms, defaults', async () => {
    const spec = await loadClusterFile(fixture('valid-local.yaml'));
    expect(spec.name).toBe('lab');
    expect(spec.backupDir).toBe(join(FIXTURES, 'backups'));
    expect(spec.driver).toEqual({ kind: 'local', runDir: join(FIXTURES, 'run') });
    expect(spec.members.map((m) => [m.name, m.clientUrl, m.peerUrl])).toEqual([
      ['m1', 'http://127.0.0.1:2379', 'http://127.0.0.1:2380'],
      ['m2', 'http://127.0.0.1:2389', 'http://127.0.0.1:2381'],
    ]);
    expect(spec.members[1]!.flags).toEqual([
      '--name',
      'm2',
      '--data-dir',
      '/var/lib/etcd/m2',
      '--advertise-client-urls=http://127.0.0.1:2389',
      '--initial-advertise-peer-urls=http://127.0.0.1:2381',
    ]);
    expect(spec.options).toEqual({ ...DEFAULT_OPTIONS, pacingSeconds: 0, stopTimeoutSeconds: 15 });
    expect(initialCluster(spec)).toBe('m1=http://127.0.0.1:2380,m2=http://127.0.0.1:2381');
    expect(Object.isFrozen(spec)).toBe(true);
  });

  it('reads a command-driver file with its templates', async () => {
    const spec = await loadClusterFile(fixture('valid-command.yaml'));
    expect(spec.driver).toMatchObject({
      kind: 'command',
      stop: 'ssh {host} sudo systemctl stop etcd',
      restore: undefined,
    });
  });

  it('names every missing field at once', async () => {
    expect(await problemsOf('bad-missing-fields.yaml')).toBe(
      [
        `cluster file ${fixture('bad-missing-fields.yaml')} is invalid:`,
        '  - binaries: is required: current, target, etcdctl, etcdutl',
        '  - backupDir: is required',
        '  - driver.runDir: is required',
        '  - members[0].clientUrl: is required',
        '  - members[0].peerUrl: is required',
        '  - members[0].dataDir: is required',
        '  - members[0].flags: is required: the list of flags the member runs with, e.g. [--name=m1, --data-dir=/var/lib/etcd]',
      ].join('\n'),
    );
  });

  it('names each missing binary', async () => {
    expect(await problemsOf('bad-binaries.yaml')).toBe(
      `cluster file ${fixture('bad-binaries.yaml')} is invalid:\n  - binaries.target: must be a non-empty string, got ""\n  - binaries.etcdutl: is required`,
    );
  });

  it('names every bad value with its field', async () => {
    expect(await problemsOf('bad-values.yaml')).toBe(
      [
        `cluster file ${fixture('bad-values.yaml')} is invalid:`,
        `  - cluster: must be letters, digits, '.', '_' or '-', got "lab one"`,
        '  - binaries.etcd: unknown field (allowed: current, target, etcdctl, etcdutl)',
        '  - driver.kind: must be local or command, got "docker"',
        '  - members[0].clientUrl: must be an http(s) URL with a host and port and no path, got "127.0.0.1:2379"',
        '  - members[0].peerUrl: must be an http(s) URL with a host and port and no path, got "http://127.0.0.1:2380/peers"',
        '  - members[0].flags[2]: "oops" is not a flag (--name=value)',
        '  - members[1].flags: must set --name=m2 (the member\'s name), found "m1"',
        '  - members[1].flags: --advertise-client-urls must include the clientUrl http://127.0.0.1:2389',
        '  - members[1].flags: --initial-advertise-peer-urls must include the peerUrl http://127.0.0.1:2390',
        '  - options.retries: unknown field (allowed: transferLeadership, v2PacingSeconds, pacingSeconds, stopTimeoutSeconds, gateTimeoutSeconds, clusterVersionTimeoutSeconds, requestTimeoutMs, pollIntervalMs)',
        '  - options.transferLeadership: must be true or false, got "yes"',
        '  - options.gateTimeoutSeconds: must be a number from 1 to 3600, got 0',
      ].join('\n'),
    );
  });

  it('checks command templates: unknown placeholders per command, unbalanced braces', async () => {
    expect(await problemsOf('bad-templates.yaml')).toBe(
      [
        `cluster file ${fixture('bad-templates.yaml')} is invalid:`,
        '  - driver.start: unknown placeholder {unit} (known here: {name} {host} {dataDir} {clientUrl} {peerUrl} {binary} {flags} {version})',
        '  - driver.stop: unknown placeholder {binary} (known here: {name} {host} {dataDir} {clientUrl} {peerUrl})',
        '  - driver.status: unbalanced brace in "ssh {host systemctl is-active etcd"',
      ].join('\n'),
    );
  });

  it('refuses two members with the same name, client URL or data folder', async () => {
    expect(await problemsOf('bad-duplicates.yaml')).toMatch(
      /members: name m1 is used by 2 members\n {2}- members: clientUrl http:\/\/127.0.0.1:2379 is used by 2 members\n {2}- members: dataDir \/d is used by 2 members$/,
    );
  });

  it('says when the file is missing or not YAML', async () => {
    expect(await problemsOf('no-such-file.yaml')).toBe(
      `cluster file ${fixture('no-such-file.yaml')}: no such file`,
    );
    expect(await problemsOf('bad-yaml.yaml')).toMatch(/^cluster file .*bad-yaml\.yaml: not YAML: /);
  });
});
