import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadClusterFile } from '../../../services/kvupgrade/adapters/cluster-file.ts';
import {
  DEFAULT_OPTIONS,
  initialCluster,
  validateClusterSpec,
} from '../../../services/kvupgrade/domain/cluster-spec.ts';
import { AppError } from '../../../shared/errors.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'kvupgrade');
const EXAMPLE = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'services',
  'kvupgrade',
  'example',
  'cluster.yaml',
);
const fixture = (name: string) => join(FIXTURES, name);

async function problemsOf(name: string, from?: string): Promise<string> {
  const error = await loadClusterFile(from ? name : fixture(name), from).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('INVALID_ARGUMENT');
  return (error as AppError).message;
}

describe('cluster file', () => {
  it('reads a local-driver file: paths from its folder, URLs normalized, both flag forms, defaults', async () => {
    const { spec } = await loadClusterFile(fixture('valid-local.yaml'));
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
    const { spec } = await loadClusterFile(fixture('valid-command.yaml'));
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
        '  - binaries.etcd: unknown field (allowed: current, target, via, targetVersion, etcdctl, etcdutl)',
        '  - driver.kind: must be local or command, got "docker"',
        '  - members[0].clientUrl: must be an http(s) URL with a host and port and no path, got "127.0.0.1:2379"',
        '  - members[0].peerUrl: must be an http(s) URL with a host and port and no path, got "http://127.0.0.1:2380/peers"',
        '  - members[0].flags[2]: "oops" is not a flag (--name=value)',
        '  - members[1].flags: must set --name=m2 (the member\'s name), found "m1"',
        '  - members[1].flags: --advertise-client-urls must include the clientUrl http://127.0.0.1:2389',
        '  - members[1].flags: --initial-advertise-peer-urls must include the peerUrl http://127.0.0.1:2390',
        '  - options.retries: unknown field (allowed: transferLeadership, v2PacingSeconds, pacingSeconds, stopTimeoutSeconds, gateTimeoutSeconds, clusterVersionTimeoutSeconds, requestTimeoutMs, pollIntervalMs, recordWaitSeconds, pauseBetweenHops)',
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
  it('reports every problem of a file in one run, in one form: fields, unknown fields and unreadable files', async () => {
    expect(await problemsOf('bad-several.yaml')).toBe(
      [
        `cluster file ${fixture('bad-several.yaml')} is invalid:`,
        '  - members[0].clientUrl: must be an http(s) URL with a host and port and no path, got "http://127.0.0.1:2379/v3"',
        '  - options.retries: unknown field (allowed: transferLeadership, v2PacingSeconds, pacingSeconds, stopTimeoutSeconds, gateTimeoutSeconds, clusterVersionTimeoutSeconds, requestTimeoutMs, pollIntervalMs, recordWaitSeconds, pauseBetweenHops)',
        '  - options.gateTimeoutSeconds: must be a number from 1 to 3600, got 0',
        `  - auth.passwordFile: cannot read ${fixture('secrets/root.password')}: no such file`,
        '  - tls.ca: cannot read /nonexistent/kvupgrade/ca.crt: no such file',
        `  - tls.cert: cannot read ${fixture('pki/client.crt')}: no such file`,
        `  - tls.key: cannot read ${fixture('pki/client.key')}: no such file`,
      ].join('\n'),
    );
  });

  it('reads the auth password (first line) and the tls files the file names, from its folder', async () => {
    const { credentials, tls } = await loadClusterFile(fixture('named-files/ok.yaml'));
    expect(credentials).toEqual({ user: 'root', password: 's3cret' });
    expect(tls?.ca.toString()).toBe('CA PEM\n');
    expect(tls?.cert?.toString()).toBe('CERT PEM\n');
    expect(tls?.key?.toString()).toBe('KEY PEM\n');
    expect(tls?.spec.ca).toBe(fixture('named-files/ca.crt'));
  });

  it('refuses an empty password file in the same form', async () => {
    expect(await problemsOf('named-files/empty-password.yaml')).toBe(
      [
        `cluster file ${fixture('named-files/empty-password.yaml')} is invalid:`,
        `  - auth.passwordFile: ${fixture('named-files/empty.password')} is empty (the password is its first line)`,
      ].join('\n'),
    );
  });

  it('takes a relative file name from the folder given (where the user ran the command), naming both', async () => {
    const { spec } = await loadClusterFile('valid-local.yaml', FIXTURES);
    expect(spec.name).toBe('lab');
    expect(spec.backupDir).toBe(join(FIXTURES, 'backups'));
    expect(await problemsOf('cluster.yaml', '/nonexistent/here')).toBe(
      'cluster file cluster.yaml (/nonexistent/here/cluster.yaml): no such file',
    );
  });

  it('loads the example shipped with kvupgrade as it is', async () => {
    const { spec, credentials, tls } = await loadClusterFile(EXAMPLE);
    expect(spec.members.map((m) => m.name)).toEqual(['m1', 'm2', 'm3']);
    expect(spec.driver.kind).toBe('local');
    expect(spec.options).toEqual(DEFAULT_OPTIONS);
    expect(credentials).toBeUndefined();
    expect(tls).toBeUndefined();
  });

  it('lets members on hosts of their own (command driver) keep data in the same folder, not members on one host', () => {
    const member = (name: string, host: string) => ({
      name,
      clientUrl: `http://${host}:2379`,
      peerUrl: `http://${host}:2380`,
      dataDir: '/var/lib/etcd',
      flags: [
        `--name=${name}`,
        '--data-dir=/var/lib/etcd',
        `--advertise-client-urls=http://${host}:2379`,
        `--initial-advertise-peer-urls=http://${host}:2380`,
      ],
    });
    const file = (driver: object, hosts: string[]) => ({
      cluster: 'c',
      binaries: { current: '/a', target: '/b', etcdctl: '/c', etcdutl: '/d' },
      backupDir: '/bk',
      driver,
      members: hosts.map((h, i) => member(`m${i + 1}`, h)),
    });
    const command = { kind: 'command', start: 's', stop: 's', status: 's' };
    expect(validateClusterSpec(file(command, ['10.0.0.1', '10.0.0.2']), '/').ok).toBe(true);
    expect(validateClusterSpec(file(command, ['10.0.0.1', '10.0.0.1']), '/')).toMatchObject({
      ok: false,
      problems: expect.arrayContaining([
        'members: dataDir /var/lib/etcd is used by 2 members on host 10.0.0.1',
      ]),
    });
    expect(
      validateClusterSpec(file({ kind: 'local', runDir: '/r' }, ['10.0.0.1', '10.0.0.2']), '/'),
    ).toMatchObject({
      ok: false,
      problems: ['members: dataDir /var/lib/etcd is used by 2 members'],
    });
  });
});
