// The checks of the cluster as a whole: health, quorum, auth, versions, membership, leader.
import { answeredVersions } from './cluster-facts.ts';
import {
  alreadyUpgraded,
  type CheckInput,
  commonServerVersion,
  leaderOf,
  type PlanCheck,
  type Verdict,
  verdict,
} from './plan-check.ts';
import { compareMinor, minorOf, OLDEST_MINOR, parseVersion } from './versions.ts';

export const AUTH_HAZARD =
  'auth is enabled: etcd does not support a rolling upgrade from 3.4 with auth, because 3.5 hashes passwords before ' +
  'proposing them. A user added or a password changed through a 3.5 member while 3.4 members remain is stored on the ' +
  '3.4 members with an EMPTY password, and stays so after the upgrade. Freeze user and password changes for the whole ' +
  'run, and set again any password changed during it.';

const unhealthy = ({ facts }: CheckInput) => facts.members.filter((m) => !m.health.ok);

const health: PlanCheck = {
  name: 'health',
  judge(input) {
    const down = unhealthy(input);
    if (down.length === 0)
      return [verdict('health', 'pass', `all ${input.facts.members.length} endpoints answer /health true`)];
    const list = down.map((m) => `${m.name} (${m.health.ok ? '' : m.health.error})`).join('; ');
    return [verdict('health', 'refuse', `unhealthy: ${list}`)];
  },
};

/** Without credentials a read is refused for want of a user: the auth check covers that. */
const needCredentials = ({ facts }: CheckInput) =>
  facts.members.some((m) => !m.quorumRead.ok && m.quorumRead.authRequired);

const quorumRead: PlanCheck = {
  name: 'quorum-read',
  judge(input) {
    const failed = input.facts.members.filter((m) => !m.quorumRead.ok && !m.quorumRead.authRequired);
    if (failed.length > 0) {
      const list = failed.map((m) => `${m.name} (${m.quorumRead.ok ? '' : m.quorumRead.error})`).join('; ');
      return [verdict('quorum-read', 'refuse', `no quorum read through ${list}`)];
    }
    if (needCredentials(input)) return [];
    return [verdict('quorum-read', 'pass', 'a linearizable read succeeds through every member')];
  },
};

/** Members whose /version gave no answer: what they run is not known. */
const silentOnVersion = ({ facts }: CheckInput) => facts.members.filter((m) => !m.version.ok);

const auth: PlanCheck = {
  name: 'auth',
  judge(input) {
    // Auth is seen as disabled only when a member answered a read without credentials.
    if (input.facts.authEnabled === undefined && !needCredentials(input))
      return [
        verdict(
          'auth',
          'refuse',
          'unknown: no member answered a read without credentials, so whether auth is enabled is not known',
        ),
      ];
    if (input.facts.authEnabled === false && !needCredentials(input))
      return [verdict('auth', 'pass', 'auth is disabled')];
    // The hazard is 3.5's new WAL format for auth: a route that does not enter 3.5 does not meet it.
    const entersThreeFive = input.route.hops.some((h) => h.kind.kind === 'minor' && h.kind.hop.to === '3.5');
    if (!entersThreeFive && input.route.hops.length > 0)
      return input.spec.auth
        ? [
            verdict(
              'auth',
              'pass',
              'auth is enabled; no hop of this route enters 3.5, whose auth WAL format is the hazard',
            ),
          ]
        : [
            verdict(
              'auth',
              'refuse',
              'auth is enabled, but the cluster file has no auth.user / auth.passwordFile to read and snapshot with',
            ),
          ];
    if (!input.allowAuth)
      return [
        verdict(
          'auth',
          'refuse',
          `${AUTH_HAZARD} Refused; run again with --allow-auth (and auth credentials in the cluster file) to accept it.`,
        ),
      ];
    if (!input.spec.auth)
      return [
        verdict(
          'auth',
          'refuse',
          'auth is enabled and --allow-auth was given, but the cluster file has no auth.user / auth.passwordFile to read and snapshot with',
        ),
      ];
    return [verdict('auth', 'warn', AUTH_HAZARD)];
  },
};

const versions: PlanCheck = {
  name: 'versions',
  judge(input) {
    const { facts } = input;
    const silent = silentOnVersion(input);
    if (silent.length > 0)
      return [
        verdict('versions', 'refuse', `/version did not answer on ${silent.map((m) => m.name).join(', ')}`),
      ];
    const list = answeredVersions(facts).map((v) => `${v.name} ${v.server} (cluster ${v.cluster})`);
    return [verdict('versions', 'pass', list.join(', '))];
  },
};

const clusterVersion: PlanCheck = {
  name: 'cluster-version',
  judge({ facts, target }) {
    const say = (status: Verdict['status'], message: string) => [verdict('cluster-version', status, message)];
    if (alreadyUpgraded(facts, target))
      return say(
        'done',
        target.endsWith('.x')
          ? `the cluster version is already ${minorOf(target)} on every member: nothing to do`
          : `every member runs ${target} with cluster version ${minorOf(target)}: nothing to do`,
      );
    const seen = new Set(answeredVersions(facts).map((v) => minorOf(v.cluster) ?? v.cluster));
    if (seen.size > 1)
      return say('refuse', `members disagree on the cluster version: ${[...seen].join(', ')}`);
    if (seen.size === 0) return say('refuse', 'unknown: no member answered /version');
    const text = [...seen][0]!;
    const cv = parseVersion(text);
    const oldest = parseVersion(OLDEST_MINOR)!;
    if (!cv) return say('refuse', `unreadable cluster version ${text}`);
    if (compareMinor(cv, oldest) < 0)
      return say(
        'refuse',
        `cluster version ${cv.major}.${cv.minor} is older than ${OLDEST_MINOR}: upgrade to ${OLDEST_MINOR} first`,
      );
    // The members' own minor: a cluster version below it is an upgrade left half done (or a downgrade).
    const running = commonServerVersion(facts);
    const minor = running ? minorOf(running) : undefined;
    if (minor !== undefined && `${cv.major}.${cv.minor}` !== minor)
      return say(
        'refuse',
        `cluster version ${cv.major}.${cv.minor} is not ${minor}, the minor every member runs: an upgrade or downgrade was left half done; use resume or rollback`,
      );
    return say('pass', `cluster version ${cv.major}.${cv.minor}`);
  },
};

const sameServerVersion: PlanCheck = {
  name: 'same-server-version',
  judge(input) {
    const { facts } = input;
    const answered = answeredVersions(facts);
    if (alreadyUpgraded(facts, input.target)) return [];
    if (answered.length === 0)
      return [verdict('same-server-version', 'refuse', 'unknown: no member answered /version')];
    const from = commonServerVersion(facts);
    if (from === undefined) {
      const list = answered.map((v) => `${v.name} ${v.server}`).join(', ');
      return [
        verdict(
          'same-server-version',
          'refuse',
          `members run different versions (${list}): an upgrade was left half done; use resume or rollback`,
        ),
      ];
    }
    if (compareMinor(parseVersion(from) ?? parseVersion('0.0')!, parseVersion(OLDEST_MINOR)!) < 0)
      return [verdict('same-server-version', 'refuse', `members run ${from}, older than ${OLDEST_MINOR}.x`)];
    const silent = silentOnVersion(input).map((m) => m.name);
    if (silent.length > 0)
      return [
        verdict(
          'same-server-version',
          'refuse',
          `unknown: ${answered.map((v) => v.name).join(', ')} run ${from}; what ${silent.join(', ')} run${silent.length === 1 ? 's' : ''} is not known (/version did not answer)`,
        ),
      ];
    return [verdict('same-server-version', 'pass', `every member runs ${from}`)];
  },
};

const membership: PlanCheck = {
  name: 'membership',
  judge({ spec, facts }) {
    const list = facts.memberList;
    if (!list) return [verdict('membership', 'refuse', 'unknown: no member answered member list')];
    const problems: string[] = [];
    for (const m of spec.members) {
      const found = list.find((l) => l.name === m.name);
      if (!found) problems.push(`${m.name} is in the file but not in the cluster`);
      else if (!found.peerUrls.map((u) => new URL(u).origin).includes(m.peerUrl))
        problems.push(
          `${m.name} has peer URLs ${found.peerUrls.join(',')} in the cluster, ${m.peerUrl} in the file`,
        );
    }
    for (const l of list)
      if (!spec.members.some((m) => m.name === l.name))
        problems.push(`${l.name || `unstarted member ${l.id}`} is in the cluster but not in the file`);
    if (problems.length > 0) return [verdict('membership', 'refuse', problems.join('; '))];
    return [verdict('membership', 'pass', `member list matches the file (${list.length} members)`)];
  },
};

const leader: PlanCheck = {
  name: 'leader',
  judge({ facts }) {
    const name = leaderOf(facts);
    // One leader is known only when every member answered whether it leads.
    const silent = facts.members.filter((m) => m.isLeader === undefined).map((m) => m.name);
    if (silent.length === facts.members.length)
      return [verdict('leader', 'refuse', 'unknown: /metrics (etcd_server_is_leader) answered on no member')];
    if (name && silent.length > 0)
      return [
        verdict(
          'leader',
          'refuse',
          `unknown: ${name} reports etcd_server_is_leader 1, but /metrics did not answer on ${silent.join(', ')}`,
        ),
      ];
    if (name) return [verdict('leader', 'pass', `leader: ${name} (etcd_server_is_leader 1)`)];
    const leaders = facts.members.filter((m) => m.isLeader === true);
    return [
      verdict(
        'leader',
        'refuse',
        leaders.length === 0
          ? `no member reports etcd_server_is_leader 1${silent.length > 0 ? `; /metrics did not answer on ${silent.join(', ')}` : ''}`
          : `several leaders: ${leaders.map((m) => m.name).join(', ')}`,
      ),
    ];
  },
};

const quorumTolerance: PlanCheck = {
  name: 'quorum-tolerance',
  judge(input) {
    const n = input.spec.members.length;
    const quorum = Math.floor(n / 2) + 1;
    const healthy = input.facts.members.length - unhealthy(input).length;
    if (healthy - 1 >= quorum)
      return [
        verdict(
          'quorum-tolerance',
          'pass',
          `${n} members, quorum ${quorum}: the cluster keeps its quorum while one member is down`,
        ),
      ];
    return [
      verdict(
        'quorum-tolerance',
        'refuse',
        `${n} members (${healthy} healthy), quorum ${quorum}: stopping one member loses the quorum and the cluster stops serving`,
      ),
    ];
  },
};

/** In the order their verdicts are listed. */
export const CLUSTER_CHECKS: readonly PlanCheck[] = Object.freeze([
  health,
  quorumRead,
  auth,
  versions,
  clusterVersion,
  sameServerVersion,
  membership,
  leader,
  quorumTolerance,
]);
