import { describe, expect, it } from 'vitest';
import { validateClusterSpec } from '../../../services/kvupgrade/domain/cluster-spec.ts';

const file = (tls: unknown, driver: unknown = { kind: 'local', runDir: 'run' }) => ({
  cluster: 'c',
  binaries: { current: '/a', target: '/b', etcdctl: '/c', etcdutl: '/d' },
  backupDir: '/bk',
  driver,
  members: [
    {
      name: 'm1',
      clientUrl: 'https://127.0.0.1:2379',
      peerUrl: 'https://127.0.0.1:2380',
      dataDir: '/d/m1',
      flags: [
        '--name=m1',
        '--data-dir=/d/m1',
        '--advertise-client-urls=https://127.0.0.1:2379',
        '--initial-advertise-peer-urls=https://127.0.0.1:2380',
        '--client-cert-auth',
      ],
    },
  ],
  ...(tls === undefined ? {} : { tls }),
});

describe('the cluster file tls block', () => {
  it('reads ca, cert, key and serverName, paths from the file folder', () => {
    const outcome = validateClusterSpec(
      file({ ca: 'pki/ca.crt', cert: '/pki/c.crt', key: '/pki/c.key', serverName: 'etcd.local' }),
      '/etc/kv',
    );
    expect(outcome).toMatchObject({
      ok: true,
      spec: {
        tls: { ca: '/etc/kv/pki/ca.crt', cert: '/pki/c.crt', key: '/pki/c.key', serverName: 'etcd.local' },
      },
    });
  });

  it('names every problem: no ca, cert without key, unknown field, not a mapping', () => {
    const outcome = validateClusterSpec(file({ cert: '/c.crt', server: 'x' }), '/');
    expect(outcome).toEqual({
      ok: false,
      problems: [
        'tls.server: unknown field (allowed: ca, cert, key, serverName)',
        'tls.ca: is required',
        'tls.key: tls.cert and tls.key go together: set both or neither',
      ],
      // Still read when the file is loaded, so that a missing one is reported in the same run.
      files: [{ field: 'tls.cert', path: '/c.crt' }],
    });
    expect(validateClusterSpec(file('yes'), '/')).toEqual({
      ok: false,
      problems: ['tls: must be a mapping with ca, cert, key and optionally serverName'],
      files: [],
    });
  });

  it('https members without a tls block are checked against the system CAs', () => {
    expect(validateClusterSpec(file(undefined), '/')).toMatchObject({ ok: true, spec: { tls: undefined } });
  });

  it('the command driver takes a check template with {file}', () => {
    const driver = {
      kind: 'command',
      start: 's {flags}',
      stop: 'x',
      status: 'y',
      check: 'ssh {host} test -f {file}',
    };
    expect(validateClusterSpec(file(undefined, driver), '/')).toMatchObject({
      ok: true,
      spec: { driver: { check: 'ssh {host} test -f {file}' } },
    });
    expect(
      validateClusterSpec(file(undefined, { ...driver, check: 'test -f {snapshot}' }), '/'),
    ).toMatchObject({
      ok: false,
      problems: [
        'driver.check: unknown placeholder {snapshot} (known here: {name} {host} {dataDir} {clientUrl} {peerUrl} {file})',
      ],
    });
  });
});
