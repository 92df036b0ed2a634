// An etcd cluster in memory behind kvupgrade's ports, for unit tests of the orchestrator: members
// run or not, on 3.4 or 3.5, one leads; every call that acts or gates is written to `log`.
import type { OrchestratorDeps } from '../../services/kvupgrade/app/deps.ts';
import { type ClusterSpec, validateClusterSpec } from '../../services/kvupgrade/domain/cluster-spec.ts';
import type { MemberSpec } from '../../services/kvupgrade/domain/member-spec.ts';
import type { UpgradeProgress } from '../../services/kvupgrade/domain/progress.ts';
import type { EtcdClient, MemberDriver, ProgressLog, SnapshotTool } from '../../services/kvupgrade/ports.ts';
import { unavailable } from '../../shared/errors.ts';
import { silentLogger } from '../../shared/logger.ts';

const CURRENT = '/opt/etcd-3.4/etcd';
const TARGET = '/opt/etcd-3.5/etcd';

/** Three members m1..m3 managed by (unused) shell templates, so nothing is read from this host. */
export function fakeClusterSpec(name = 'lab'): ClusterSpec {
  const outcome = validateClusterSpec(
    {
      cluster: name,
      binaries: { current: CURRENT, target: TARGET, etcdctl: '/opt/etcdctl', etcdutl: '/opt/etcdutl' },
      backupDir: '/backups',
      driver: { kind: 'command', start: 'true', stop: 'true', status: 'true' },
      members: ['m1', 'm2', 'm3'].map((m, i) => ({
        name: m,
        clientUrl: `http://127.0.0.1:${2379 + i}`,
        peerUrl: `http://127.0.0.1:${2390 + i}`,
        dataDir: `/var/lib/etcd/${m}`,
        flags: [
          `--name=${m}`,
          `--data-dir=/var/lib/etcd/${m}`,
          `--advertise-client-urls=http://127.0.0.1:${2379 + i}`,
          `--initial-advertise-peer-urls=http://127.0.0.1:${2390 + i}`,
          '--logger=zap',
        ],
      })),
      options: { pacingSeconds: 0 },
    },
    '/',
  );
  if (!outcome.ok) throw new Error(outcome.problems.join('; '));
  return outcome.spec;
}

interface FakeMember {
  readonly spec: MemberSpec;
  readonly id: string;
  running: boolean;
  server: string;
  /** Which making of its data folder the member runs on. */
  folder: number;
}

export interface FakeCluster {
  readonly spec: ClusterSpec;
  readonly deps: OrchestratorDeps;
  /** What happened, in order: `health m1`, `read m1 on 3.5.16`, `stop m1`, `transition member-stopped [m1]`… */
  readonly log: string[];
  /** Every event published, as the topic holds them. */
  readonly events: UpgradeProgress[];
  /** What the run told a person besides its events (waiting for Kafka). */
  readonly notices: string[];
  /**
   * Kafka stops answering (publishes reject with UNAVAILABLE, as the bus does) for `forMs` of the
   * fake clock, or until told otherwise; `when` delays that until a line is logged (e.g. `stop m1`).
   */
  loseKafka(options?: { readonly forMs?: number; readonly when?: string }): void;
  restoreKafka(): void;
  leader: string;
  /** The cluster built again in the same place, with the same flags: 3.4, new data folders, revision 1. */
  rebuild(): void;
}

export function createFakeCluster(
  options: { spec?: ClusterSpec; leader?: string; server?: string; history?: UpgradeProgress[] } = {},
): FakeCluster {
  const spec = options.spec ?? fakeClusterSpec();
  const log: string[] = [];
  const notices: string[] = [];
  const events: UpgradeProgress[] = [...(options.history ?? [])];
  /** Kafka answers before this time of the fake clock (Infinity: it answers). */
  let kafkaBackAt = Number.NEGATIVE_INFINITY;
  let loseAfter: { line: string; forMs: number } | undefined;
  const record = (line: string) => {
    log.push(line);
    if (loseAfter && line === loseAfter.line) {
      kafkaBackAt = now + loseAfter.forMs;
      loseAfter = undefined;
    }
  };
  const members: FakeMember[] = spec.members.map((m, i) => ({
    spec: m,
    id: String(1000 + i),
    running: true,
    server: options.server ?? '3.4.23',
    folder: 1,
  }));
  let revision = 40;
  let now = 1_800_000_000_000;
  const world: FakeCluster = {
    spec,
    deps: undefined as never,
    log,
    events,
    notices,
    loseKafka({ forMs = Number.POSITIVE_INFINITY, when } = {}) {
      if (when) loseAfter = { line: when, forMs };
      else kafkaBackAt = now + forMs;
    },
    restoreKafka() {
      kafkaBackAt = Number.NEGATIVE_INFINITY;
    },
    leader: options.leader ?? 'm2',
    rebuild() {
      for (const m of members) Object.assign(m, { running: true, server: '3.4.23', folder: m.folder + 1 });
      revision = 1;
    },
  };

  const at = (url: string) => {
    const found = members.find((m) => m.spec.clientUrl === url || m.spec.peerUrl === url);
    if (!found) throw new Error(`no member at ${url}`);
    return found;
  };
  const up = (url: string) => {
    const m = at(url);
    if (!m.running) throw unavailable(`${url}: connect ECONNREFUSED`);
    return m;
  };
  const clusterVersion = () =>
    members.every((m) => m.running && m.server.startsWith('3.5.')) ? '3.5.0' : '3.4.0';

  const etcd: EtcdClient = {
    certificate: async () => undefined,
    async health(url) {
      record(`health ${at(url).spec.name}`);
      up(url);
      return true;
    },
    async version(url) {
      return { server: up(url).server, cluster: clusterVersion() };
    },
    isLeader: async (url) => up(url).spec.name === world.leader,
    async quorumRead(url) {
      const m = up(url);
      record(`read ${m.spec.name} on ${m.server}`);
      if (members.filter((x) => x.running).length < 2) throw unavailable('no quorum');
      return { revision };
    },
    authEnabled: async () => false,
    async status(url) {
      const m = up(url);
      const leaderId = members.find((x) => x.spec.name === world.leader)!.id;
      // IDs come from the peer URLs and the cluster token: a cluster built again gets the same ones.
      return {
        memberId: m.id,
        clusterId: '4242',
        leaderId,
        revision,
        raftIndex: revision + 10,
        version: m.server,
      };
    },
    memberList: async () =>
      members.map((m) => ({
        id: m.id,
        name: m.spec.name,
        peerUrls: [m.spec.peerUrl],
        clientUrls: [m.spec.clientUrl],
        isLearner: false,
      })),
    accepting: async (url) => at(url).running,
    forgetToken: () => {},
    async moveLeader(leaderUrl, targetId) {
      const target = members.find((m) => m.id === targetId)!;
      record(`move leader ${up(leaderUrl).spec.name} -> ${target.spec.name}`);
      world.leader = target.spec.name;
    },
    async downgrade() {
      throw new Error('the in-memory cluster has no downgrade');
    },
  };

  const named = (member: MemberSpec) => members.find((m) => m.spec.name === member.name)!;
  const driver: MemberDriver = {
    async start(member, binary) {
      const m = named(member);
      m.server = binary === spec.binaries.target ? '3.5.16' : '3.4.23';
      record(`start ${member.name} on ${m.server}`);
      m.running = true;
      revision += 1; // the member publishes itself through raft
    },
    async stop(member) {
      record(`stop ${member.name}`);
      named(member).running = false;
      // A stopped leader hands leadership to a member that still runs.
      if (world.leader === member.name) world.leader = members.find((m) => m.running)!.spec.name;
      return { escalated: false };
    },
    processes: async (member) => ({
      lookedFor: `the process of ${member.name}`,
      found: named(member).running ? [{ pid: 100, flagDifferences: [] }] : [],
    }),
    fileExists: async () => true,
    dataDirId: async (member) => `folder-${named(member).folder}`,
    status: async (member) => ({ running: named(member).running }),
    drainLogs: async () => [],
    tailLogs: async () => [],
    checkV2store: async () => undefined,
    restoreData: async () => {
      throw new Error('not in this fake');
    },
  };

  const snapshots: SnapshotTool = {
    async save(endpoint) {
      record(`snapshot from ${at(endpoint).spec.name}`);
    },
    status: async () => ({ hash: 7, revision, totalKeys: 12, totalBytes: 24_576 }),
  };

  const progress: ProgressLog = {
    async publish(list) {
      if (now < kafkaBackAt)
        throw unavailable(
          'kafka: no broker of 127.0.0.1:9092 has answered; publishing to kv.upgrade-progress was not done',
        );
      for (const e of list) record(`${e.kind} ${e.step}${e.member ? ` [${e.member}]` : ''}`);
      events.push(...list);
    },
    async read(cluster) {
      if (now < kafkaBackAt)
        throw unavailable('kafka: no broker of 127.0.0.1:9092 has answered; listing topics was not done');
      return events.filter((e) => e.cluster === cluster);
    },
  };

  let ids = 0;
  (world as { deps: OrchestratorDeps }).deps = {
    spec,
    etcd,
    driver,
    snapshots,
    binaryVersion: async (file) => ({
      version: file === spec.binaries.current ? '3.4.23' : '3.5.16',
    }),
    progress,
    clock: { now: () => now },
    logger: silentLogger,
    events: { session: 's1', command: 'run', newId: () => `e${++ids}` },
    sleep: async (ms) => {
      now += ms;
    },
    onEvent: () => {},
    onNotice: (message) => void notices.push(message),
  };
  return world;
}
