import { describe, expect, it } from 'vitest';
import { type ClusterSpec, validateClusterSpec } from '../../../services/kvupgrade/domain/cluster-spec.ts';
import {
  type ClusterFacts,
  evaluatePlan,
  type MemberFacts,
  type Plan,
} from '../../../services/kvupgrade/domain/plan.ts';

function specWith(
  extra: (i: number) => string[] = () => ['--logger=zap'],
  options: Record<string, unknown> = {},
  auth?: object,
): ClusterSpec {
  const members = ['m1', 'm2', 'm3'].map((name, i) => ({
    name,
    clientUrl: `http://127.0.0.1:${2379 + i}`,
    peerUrl: `http://127.0.0.1:${2380 + 10 + i}`,
    dataDir: `/var/lib/etcd/${name}`,
    flags: [
      `--name=${name}`,
      `--data-dir=/var/lib/etcd/${name}`,
      `--advertise-client-urls=http://127.0.0.1:${2379 + i}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${2380 + 10 + i}`,
      ...extra(i),
    ],
  }));
  const raw = {
    cluster: 'prod',
    binaries: {
      current: '/opt/etcd-3.4/etcd',
      target: '/opt/etcd-3.5/etcd',
      etcdctl: '/opt/etcdctl',
      etcdutl: '/opt/etcdutl',
    },
    backupDir: '/var/backups/etcd',
    driver: { kind: 'local', runDir: '/run/kvupgrade' },
    members,
    options,
    ...(auth ? { auth } : {}),
  };
  const outcome = validateClusterSpec(raw, '/');
  if (!outcome.ok) throw new Error(outcome.problems.join('; '));
  return outcome.spec;
}

const healthy = (name: string, over: Partial<MemberFacts> = {}): MemberFacts => ({
  name,
  health: { ok: true },
  version: { ok: true, server: '3.4.23', cluster: '3.4.0' },
  isLeader: name === 'm2',
  quorumRead: { ok: true, revision: 24 },
  memberId: '18003949360126019154',
  v2SnapshotBytes: 4096,
  ...over,
});

function factsWith(
  over: Record<string, Partial<MemberFacts>> = {},
  rest: Partial<ClusterFacts> = {},
): ClusterFacts {
  return {
    members: ['m1', 'm2', 'm3'].map((n) => healthy(n, over[n])),
    memberList: ['m1', 'm2', 'm3'].map((name, i) => ({
      id: String(i + 1),
      name,
      peerUrls: [`http://127.0.0.1:${2390 + i}`],
    })),
    tools: {
      current: { version: '3.4.23' },
      target: { version: '3.5.16' },
      etcdctl: { version: '3.5.16' },
      etcdutl: { version: '3.5.16' },
    },
    authEnabled: false,
    ...rest,
  };
}

const refusals = (plan: Plan) => plan.verdicts.filter((v) => v.status === 'refuse');
const verdict = (plan: Plan, check: string) => plan.verdicts.filter((v) => v.check === check);

describe('plan', () => {
  it('passes a healthy 3.4 cluster and orders followers first, the leader last', () => {
    const plan = evaluatePlan(specWith(), factsWith(), { allowAuth: false });
    expect(refusals(plan)).toEqual([]);
    expect(plan.outcome).toBe('go');
    expect(plan.leader).toBe('m2');
    expect(plan.order).toEqual(['m1', 'm3', 'm2']);
    expect(plan.fromVersion).toBe('3.4.23');
    expect(plan.toVersion).toBe('3.5.16');
    expect(plan.pacingMs).toBe(0);
  });

  it('refuses an unhealthy member, naming it', () => {
    const down = {
      health: { ok: false, error: 'connect ECONNREFUSED' },
      quorumRead: { ok: false, error: 'ECONNREFUSED', authRequired: false },
    } as const;
    const plan = evaluatePlan(specWith(), factsWith({ m3: down }), { allowAuth: false });
    expect(plan.outcome).toBe('refuse');
    expect(verdict(plan, 'health')).toEqual([
      { check: 'health', status: 'refuse', message: 'unhealthy: m3 (connect ECONNREFUSED)' },
    ]);
    expect(verdict(plan, 'quorum-read')[0]!.message).toBe('no quorum read through m3 (ECONNREFUSED)');
    // 2 healthy of 3: stopping one more would lose the quorum.
    expect(verdict(plan, 'quorum-tolerance')[0]!.status).toBe('refuse');
  });

  it('refuses mixed server versions: an upgrade was left half done', () => {
    const plan = evaluatePlan(
      specWith(),
      factsWith({ m1: { version: { ok: true, server: '3.5.16', cluster: '3.4.0' } } }),
      { allowAuth: false },
    );
    expect(plan.outcome).toBe('refuse');
    expect(verdict(plan, 'same-server-version')[0]).toEqual({
      check: 'same-server-version',
      status: 'refuse',
      message:
        'members run different versions (m1 3.5.16, m2 3.4.23, m3 3.4.23): an upgrade was left half done; use resume or rollback',
    });
  });

  it('refuses each flag 3.5 removed, naming its replacement', () => {
    const spec = specWith((i) =>
      i === 0
        ? ['--logger=capnslog']
        : i === 1
          ? ['--log-output=stderr', '--debug']
          : ['--logger=zap', '--log-package-levels=etcdserver=DEBUG'],
    );
    const plan = evaluatePlan(spec, factsWith(), { allowAuth: false });
    expect(plan.outcome).toBe('refuse');
    expect(verdict(plan, 'removed-flags').map((v) => v.message)).toEqual([
      'm1 uses --logger=capnslog, removed in 3.5 (3.5.16 exits 1: "--logger=capnslog is removed in v3.5"); replace it with --logger=zap --log-outputs=stderr',
      'm2 uses --log-output, removed in 3.5 (3.5.16 exits 2: "flag provided but not defined: -log-output"); replace it with --log-outputs (several outputs, comma separated, e.g. stderr)',
      'm2 uses --debug, removed in 3.5 (3.5.16 exits 2: "flag provided but not defined: -debug"); replace it with --log-level=debug',
      'm3 uses --log-package-levels, removed in 3.5 (3.5.16 exits 2: "flag provided but not defined: -log-package-levels"); replace it with none: use --logger=zap with --log-level',
    ]);
  });

  it('warns when a member has no --logger: the log format changes from text to JSON', () => {
    const plan = evaluatePlan(
      specWith(() => []),
      factsWith(),
      { allowAuth: false },
    );
    expect(plan.outcome).toBe('go');
    expect(verdict(plan, 'logger')).toHaveLength(3);
    expect(verdict(plan, 'logger')[0]!.status).toBe('warn');
  });

  it('refuses auth unless allowed, explains the hazard, and needs credentials when allowed', () => {
    const authOn = {
      quorumRead: {
        ok: false,
        error: 'auth is enabled (etcdserver: user name is empty)',
        authRequired: true,
      },
    } as const;
    const facts = factsWith({ m1: authOn, m2: authOn, m3: authOn });
    const refused = evaluatePlan(specWith(), facts, { allowAuth: false });
    expect(refused.outcome).toBe('refuse');
    expect(verdict(refused, 'auth')[0]!.message).toMatch(
      /^auth is enabled: .*EMPTY password.* Refused; run again with --allow-auth/,
    );
    expect(verdict(refused, 'quorum-read')).toEqual([]);
    const noCredentials = evaluatePlan(specWith(), facts, { allowAuth: true });
    expect(verdict(noCredentials, 'auth')[0]!.status).toBe('refuse');
    expect(verdict(noCredentials, 'auth')[0]!.message).toMatch(/no auth.user/);
    const allowed = evaluatePlan(
      specWith(undefined, {}, { user: 'root', passwordFile: '/etc/etcd/root.pw' }),
      facts,
      { allowAuth: true },
    );
    expect(allowed.outcome).toBe('go');
    expect(verdict(allowed, 'auth')[0]!.status).toBe('warn');
  });

  it('has nothing to do on a cluster already on 3.5', () => {
    const on35 = { version: { ok: true, server: '3.5.16', cluster: '3.5.0' } } as const;
    const plan = evaluatePlan(specWith(), factsWith({ m1: on35, m2: on35, m3: on35 }), { allowAuth: false });
    expect(plan.outcome).toBe('done');
    expect(verdict(plan, 'cluster-version')[0]!.message).toBe(
      'every member runs 3.5.16 with cluster version 3.5: nothing to do',
    );
  });

  it('refuses a cluster older than 3.4', () => {
    const old = { version: { ok: true, server: '3.3.27', cluster: '3.3.0' } } as const;
    const plan = evaluatePlan(specWith(), factsWith({ m1: old, m2: old, m3: old }), { allowAuth: false });
    expect(verdict(plan, 'cluster-version')[0]!.message).toBe(
      'cluster version 3.3 is older than 3.4: upgrade to 3.4 first',
    );
  });

  it('refuses when the member list and the file disagree, or no single leader is seen', () => {
    const facts = factsWith(
      { m2: { isLeader: false } },
      {
        memberList: [
          { id: '1', name: 'm1', peerUrls: ['http://127.0.0.1:2390'] },
          { id: '2', name: 'm2', peerUrls: ['http://127.0.0.1:9999'] },
          { id: '4', name: 'm4', peerUrls: ['http://127.0.0.1:2393'] },
        ],
      },
    );
    const plan = evaluatePlan(specWith(), facts, { allowAuth: false });
    expect(verdict(plan, 'membership')[0]!.message).toBe(
      'm2 has peer URLs http://127.0.0.1:9999 in the cluster, http://127.0.0.1:2391 in the file; m3 is in the file but not in the cluster; m4 is in the cluster but not in the file',
    );
    expect(verdict(plan, 'leader')[0]!.message).toBe('no member reports etcd_server_is_leader 1');
  });

  it('refuses a cluster that loses its quorum with one member down', () => {
    const spec = validateClusterSpec(
      {
        cluster: 'one',
        binaries: { current: '/a', target: '/b', etcdctl: '/c', etcdutl: '/d' },
        backupDir: '/b',
        driver: { kind: 'local', runDir: '/r' },
        members: [
          {
            name: 'm1',
            clientUrl: 'http://127.0.0.1:2379',
            peerUrl: 'http://127.0.0.1:2380',
            dataDir: '/d1',
            flags: [
              '--name=m1',
              '--data-dir=/d1',
              '--advertise-client-urls=http://127.0.0.1:2379',
              '--initial-advertise-peer-urls=http://127.0.0.1:2380',
            ],
          },
        ],
      },
      '/',
    );
    if (!spec.ok) throw new Error(spec.problems.join());
    const plan = evaluatePlan(
      spec.spec,
      {
        ...factsWith(),
        members: [healthy('m1', { isLeader: true })],
        memberList: [{ id: '1', name: 'm1', peerUrls: ['http://127.0.0.1:2380'] }],
      },
      { allowAuth: false },
    );
    expect(verdict(plan, 'quorum-tolerance')[0]).toMatchObject({
      status: 'refuse',
      message:
        '1 members (1 healthy), quorum 1: stopping one member loses the quorum and the cluster stops serving',
    });
  });

  it('paces members 2 minutes apart when v2 data is over 50 MB or unknown, unless pacing is set', () => {
    const big = evaluatePlan(specWith(), factsWith({ m3: { v2SnapshotBytes: 60 * 1024 * 1024 } }), {
      allowAuth: false,
    });
    expect(big.pacingMs).toBe(120_000);
    expect(verdict(big, 'v2-data')[0]!.message).toBe(
      'v2 data 60.0 MB is over 50 MB: waiting 120 s between members for the catch-up',
    );
    const unknown = evaluatePlan(specWith(), factsWith({ m1: { v2SnapshotBytes: undefined } }), {
      allowAuth: false,
    });
    expect(unknown.pacingMs).toBe(120_000);
    const forced = evaluatePlan(
      specWith(undefined, { pacingSeconds: 5 }),
      factsWith({ m1: { v2SnapshotBytes: undefined } }),
      { allowAuth: false },
    );
    expect(forced.pacingMs).toBe(5000);
  });

  it('refuses binaries that do not run or are not the expected versions', () => {
    const plan = evaluatePlan(
      specWith(),
      factsWith(
        {},
        {
          tools: {
            current: { version: '3.5.16' },
            target: { error: 'spawn ENOENT' },
            etcdctl: { version: '3.5.16' },
            etcdutl: { version: '3.5.16' },
          },
        },
      ),
      { allowAuth: false },
    );
    expect(
      verdict(plan, 'binaries')
        .filter((v) => v.status === 'refuse')
        .map((v) => v.message),
    ).toEqual([
      'binaries.current (etcd) is 3.5.16, expected 3.4.x',
      'binaries.target (etcd) cannot run: spawn ENOENT',
    ]);
  });

  const oneProcess = (pid: number, flagDifferences: string[] = []) => ({
    processes: { lookedFor: 'a process with --name and --data-dir', found: [{ pid, flagDifferences }] },
  });

  it('passes one process per member with the same flags, naming the PIDs', () => {
    const plan = evaluatePlan(
      specWith(),
      factsWith({ m1: oneProcess(11), m2: oneProcess(12), m3: oneProcess(13) }),
      { allowAuth: false },
    );
    expect(verdict(plan, 'processes')).toEqual([
      {
        check: 'processes',
        status: 'pass',
        message:
          "one running process per member, started with the cluster file's flags: m1 pid 11, m2 pid 12, m3 pid 13",
      },
    ]);
  });

  it('refuses no process, several processes, or other flags, naming the member and what was looked for', () => {
    const plan = evaluatePlan(
      specWith(),
      factsWith({
        m1: { processes: { lookedFor: 'X for m1', found: [] } },
        m2: {
          processes: {
            lookedFor: 'X for m2',
            found: [
              { pid: 21, flagDifferences: [] },
              { pid: 22, flagDifferences: [] },
            ],
          },
        },
        m3: oneProcess(31, ['--snapshot-count=5 is not in the cluster file']),
      }),
      { allowAuth: false },
    );
    expect(plan.outcome).toBe('refuse');
    expect(verdict(plan, 'processes')[0]!.message).toBe(
      'm1: no running process found, expected exactly one; looked for X for m1; ' +
        'm2: 2 running processes found (pids 21, 22), expected exactly one; looked for X for m2; ' +
        'm3 (pid 31) runs with other flags than the cluster file, which every restart uses: --snapshot-count=5 is not in the cluster file',
    );
  });

  it('refuses a member without member/snap/db, warns when the driver cannot tell', () => {
    const missing = evaluatePlan(
      specWith(),
      factsWith({
        m1: { v3Database: { file: '/d/m1/member/snap/db', exists: true } },
        m2: { v3Database: { file: '/d/m2/member/snap/db', exists: false } },
      }),
      { allowAuth: false },
    );
    expect(missing.outcome).toBe('refuse');
    expect(verdict(missing, 'v3-database')[0]!.message).toMatch(
      /^m2 has no v3 database \(\/d\/m2\/member\/snap\/db is missing\): a server migrated from v2 that never wrote v3 data panics/,
    );
    const unknown = evaluatePlan(
      specWith(),
      factsWith({ m3: { v3Database: { file: '/d/m3/member/snap/db', exists: undefined } } }),
      { allowAuth: false },
    );
    expect(unknown.outcome).toBe('go');
    expect(verdict(unknown, 'v3-database')[0]).toMatchObject({ status: 'warn' });
    expect(verdict(unknown, 'v3-database')[0]!.message).toContain('set driver.check');
  });

  describe('a check that had no answer says so and refuses, never ok', () => {
    const silent = (name: string): Partial<MemberFacts> => ({
      health: { ok: false, error: `${name}/health: ECONNREFUSED` },
      version: { ok: false, error: `${name}/version: ECONNREFUSED` },
      isLeader: undefined,
      quorumRead: { ok: false, error: 'ECONNREFUSED', authRequired: false },
      memberId: undefined,
    });
    const allDown = () =>
      factsWith(
        { m1: silent('m1'), m2: silent('m2'), m3: silent('m3') },
        { memberList: undefined, authEnabled: undefined },
      );

    it('with no member answering, only what was read from files and binaries passes', () => {
      const plan = evaluatePlan(specWith(), allDown(), { allowAuth: false });
      expect(plan.outcome).toBe('refuse');
      expect(plan.verdicts.filter((v) => v.status !== 'refuse').map((v) => v.check)).toEqual([
        'v2-data',
        'removed-flags',
        'binaries',
        'binaries',
        'binaries',
        'binaries',
      ]);
      expect(verdict(plan, 'auth')).toEqual([
        {
          check: 'auth',
          status: 'refuse',
          message:
            'unknown: no member answered a read without credentials, so whether auth is enabled is not known',
        },
      ]);
      expect(verdict(plan, 'cluster-version')).toEqual([
        { check: 'cluster-version', status: 'refuse', message: 'unknown: no member answered /version' },
      ]);
      expect(verdict(plan, 'same-server-version')).toEqual([
        { check: 'same-server-version', status: 'refuse', message: 'unknown: no member answered /version' },
      ]);
      expect(verdict(plan, 'membership')).toEqual([
        { check: 'membership', status: 'refuse', message: 'unknown: no member answered member list' },
      ]);
      expect(verdict(plan, 'leader')).toEqual([
        {
          check: 'leader',
          status: 'refuse',
          message: 'unknown: /metrics (etcd_server_is_leader) answered on no member',
        },
      ]);
    });

    it('auth is disabled only when a member answered a read without credentials', () => {
      const answered = evaluatePlan(specWith(), factsWith({}, { authEnabled: false }), { allowAuth: false });
      expect(verdict(answered, 'auth')).toEqual([
        { check: 'auth', status: 'pass', message: 'auth is disabled' },
      ]);
      const unknown = evaluatePlan(specWith(), factsWith({}, { authEnabled: undefined }), {
        allowAuth: false,
      });
      expect(verdict(unknown, 'auth')[0]!.status).toBe('refuse');
      // A read refused for want of a user shows auth on, even when the direct question had no answer.
      const authOn = { quorumRead: { ok: false, error: 'user name is empty', authRequired: true } } as const;
      const seen = evaluatePlan(specWith(), factsWith({ m1: authOn }, { authEnabled: undefined }), {
        allowAuth: false,
      });
      expect(verdict(seen, 'auth')[0]!.message).toMatch(/^auth is enabled: /);
    });

    it('one server version is not claimed for members whose /version did not answer', () => {
      const plan = evaluatePlan(specWith(), factsWith({ m3: silent('m3') }), { allowAuth: false });
      expect(verdict(plan, 'same-server-version')).toEqual([
        {
          check: 'same-server-version',
          status: 'refuse',
          message: 'unknown: m1, m2 run 3.4.23; what m3 runs is not known (/version did not answer)',
        },
      ]);
      expect(verdict(plan, 'cluster-version')[0]!.status).toBe('pass');
    });

    it('a single leader is not claimed while a member did not say whether it leads', () => {
      const plan = evaluatePlan(specWith(), factsWith({ m3: { isLeader: undefined } }), { allowAuth: false });
      expect(verdict(plan, 'leader')).toEqual([
        {
          check: 'leader',
          status: 'refuse',
          message: 'unknown: m2 reports etcd_server_is_leader 1, but /metrics did not answer on m3',
        },
      ]);
    });

    it('a v3 database the driver looked for and got no answer about is unknown, refused', () => {
      const plan = evaluatePlan(
        specWith(),
        factsWith({
          m1: {
            v3Database: {
              file: '/d/m1/member/snap/db',
              exists: undefined,
              error: 'cannot look for /d/m1/member/snap/db: EACCES',
            },
          },
          m2: { v3Database: { file: '/d/m2/member/snap/db', exists: true } },
        }),
        { allowAuth: false },
      );
      expect(verdict(plan, 'v3-database')).toEqual([
        {
          check: 'v3-database',
          status: 'refuse',
          message:
            'unknown: could not look for the v3 database (member/snap/db) of m1 (cannot look for /d/m1/member/snap/db: EACCES); a member without it panics on 3.5',
        },
      ]);
    });
  });

  describe('tls', () => {
    const day = 24 * 3600 * 1000;
    const now = Date.parse('2026-11-25T00:00:00Z');
    const tlsSpec = () => {
      const base = specWith();
      return { ...base, tls: { ca: '/ca.crt', cert: '/c.crt', key: '/c.key', serverName: undefined } };
    };
    const certs = (clientDays: number) => [
      { field: 'tls.ca', file: '/ca.crt', subject: 'CN=ca', notAfter: now + 300 * day },
      { field: 'tls.cert', file: '/c.crt', subject: 'CN=kvupgrade', notAfter: now + clientDays * day },
    ];

    it('passes loadable certificates far from expiry, saying every member answers over TLS', () => {
      const plan = evaluatePlan(tlsSpec(), factsWith({}, { certificates: certs(200), checkedAt: now }), {
        allowAuth: false,
      });
      expect(verdict(plan, 'tls')).toEqual([
        {
          check: 'tls',
          status: 'pass',
          message:
            '2 certificates load (tls.ca CN=ca, tls.cert CN=kvupgrade); the first to expire is tls.cert /c.crt on 2027-06-13; every member answers over TLS with them',
        },
      ]);
    });

    it('warns within 30 days (server certificates too), refuses expired or unloadable ones', () => {
      const soon = evaluatePlan(
        tlsSpec(),
        factsWith(
          {
            m2: {
              serverCertificate: {
                field: 'm2 server certificate',
                subject: 'CN=m2',
                notAfter: now + 3 * day,
              },
            },
          },
          { certificates: certs(29), checkedAt: now },
        ),
        { allowAuth: false },
      );
      expect(soon.outcome).toBe('go');
      expect(verdict(soon, 'tls')).toEqual([
        {
          check: 'tls',
          status: 'warn',
          message:
            'certificates expiring within 30 days: tls.cert /c.crt (CN=kvupgrade) in 29 days, 2026-12-24T00:00:00.000Z; m2 server certificate (CN=m2) in 3 days, 2026-11-28T00:00:00.000Z',
        },
      ]);
      const bad = evaluatePlan(
        tlsSpec(),
        factsWith(
          {},
          {
            certificates: [
              ...certs(-1),
              {
                field: 'tls.cert',
                file: '/c.crt',
                error: 'tls.key /c.key is not the key of this certificate',
              },
            ],
            checkedAt: now,
          },
        ),
        { allowAuth: false },
      );
      expect(bad.outcome).toBe('refuse');
      expect(verdict(bad, 'tls').map((v) => v.message)).toEqual([
        'certificates that do not load: tls.cert /c.crt: tls.key /c.key is not the key of this certificate',
        'expired certificates: tls.cert /c.crt (CN=kvupgrade) expired 2026-11-24T00:00:00.000Z',
      ]);
    });

    it("refuses a member's server certificate that could not be read as unknown, not as broken", () => {
      const plan = evaluatePlan(
        tlsSpec(),
        factsWith(
          { m3: { serverCertificate: { field: 'm3 server certificate', error: 'connect ECONNREFUSED' } } },
          { certificates: certs(200), checkedAt: now },
        ),
        { allowAuth: false },
      );
      expect(verdict(plan, 'tls')).toEqual([
        {
          check: 'tls',
          status: 'refuse',
          message:
            'unknown: certificates that could not be read: m3 server certificate: connect ECONNREFUSED',
        },
      ]);
    });
  });
});
