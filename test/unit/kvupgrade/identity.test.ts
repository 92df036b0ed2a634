import { describe, expect, it } from 'vitest';
import { etcdArgs } from '../../../services/kvupgrade/adapters/local-process-driver.ts';
import { validateClusterSpec } from '../../../services/kvupgrade/domain/cluster-spec.ts';
import { effectiveFlags, flagDifferences, parseFlags } from '../../../services/kvupgrade/domain/flags.ts';

const flags = (args: string[]) => {
  const parsed = parseFlags(args);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.flags;
};

describe('flags as etcd (Go flag) parses them', () => {
  it('--flag=value, --flag value and -flag value are the same flag', () => {
    const forms = [
      ['--name=m1', '--data-dir=/d'],
      ['--name', 'm1', '--data-dir', '/d'],
      ['-name', 'm1', '-data-dir=/d'],
    ];
    for (const form of forms) expect(flagDifferences(flags(forms[0]!), flags(form))).toEqual([]);
  });

  it('a value flag takes the next argument even when it starts with a dash', () => {
    expect(flags(['--log-level', '-x'])).toEqual([{ name: 'log-level', value: '-x' }]);
  });

  it('a boolean flag never takes the next argument: --client-cert-auth true is a stray word', () => {
    expect(flags(['--client-cert-auth', '--name', 'm1'])).toEqual([
      { name: 'client-cert-auth', value: 'true' },
      { name: 'name', value: 'm1' },
    ]);
    expect(parseFlags(['--client-cert-auth', 'true'])).toEqual({
      ok: false,
      index: 1,
      problem: '"true" is not a flag (--name=value)',
    });
  });

  it('boolean spellings: bare, =true, =1, =T are the same; =false and =0 too', () => {
    expect(flagDifferences(flags(['--client-cert-auth']), flags(['--client-cert-auth=1']))).toEqual([]);
    expect(flagDifferences(flags(['--client-cert-auth']), flags(['-client-cert-auth=T']))).toEqual([]);
    expect(flagDifferences(flags(['--pre-vote=false']), flags(['--pre-vote=0']))).toEqual([]);
    expect(parseFlags(['--pre-vote=yes'])).toEqual({
      ok: false,
      index: 0,
      problem: '--pre-vote is a boolean flag: "yes" is not true or false',
    });
  });

  it('a value flag without a value, and arguments after --, are refused as etcd refuses them', () => {
    expect(parseFlags(['--name'])).toEqual({
      ok: false,
      index: 0,
      problem: '--name needs a value (--name=value)',
    });
    expect(parseFlags(['--name=m1', '--'])).toEqual({ ok: true, flags: [{ name: 'name', value: 'm1' }] });
    expect(parseFlags(['--name=m1', '--', 'x'])).toMatchObject({ ok: false, index: 2 });
  });

  it('the last value of a repeated flag wins', () => {
    expect(effectiveFlags(flags(['--name=a', '--name', 'b'])).get('name')).toBe('b');
    expect(flagDifferences(flags(['--name=b']), flags(['--name=a', '--name=b']))).toEqual([]);
  });

  it('names each differing, missing and extra flag', () => {
    expect(
      flagDifferences(
        flags(['--name=m1', '--snapshot-count=100', '--enable-v2']),
        flags(['--name', 'm1', '--snapshot-count', '200', '--quota-backend-bytes', '8']),
      ),
    ).toEqual([
      '--snapshot-count is "200", not "100"',
      '--enable-v2=true is missing',
      '--quota-backend-bytes=8 is not in the cluster file',
    ]);
  });

  it('the cluster file accepts the two-argument form for --name and --data-dir', () => {
    const outcome = validateClusterSpec(
      {
        cluster: 'c',
        binaries: { current: '/a', target: '/b', etcdctl: '/c', etcdutl: '/d' },
        backupDir: '/bk',
        driver: { kind: 'local', runDir: '/run' },
        members: [
          {
            name: 'm1',
            clientUrl: 'http://127.0.0.1:2379',
            peerUrl: 'http://127.0.0.1:2380',
            dataDir: '/d/m1',
            flags: [
              '--name',
              'm1',
              '-data-dir',
              '/d/m1',
              '--advertise-client-urls',
              'http://127.0.0.1:2379',
              '--initial-advertise-peer-urls=http://127.0.0.1:2380',
            ],
          },
        ],
      },
      '/',
    );
    expect(outcome.ok).toBe(true);
  });
});

describe('a process command line as etcd arguments', () => {
  it('after the program, or after an interpreter and its script', () => {
    expect(etcdArgs(['/usr/bin/etcd', '--name', 'm1'])).toEqual([{ name: 'name', value: 'm1' }]);
    expect(etcdArgs(['/bin/sh', '/opt/etcd-wrapper', '--name=m1'])).toEqual([{ name: 'name', value: 'm1' }]);
    expect(etcdArgs(['/usr/bin/etcd'])).toBeUndefined();
    expect(etcdArgs(['/usr/bin/vim', 'notes.txt'])).toBeUndefined();
  });
});
