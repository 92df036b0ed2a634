// The checks of what each member runs with: v2 data, flags, binaries, processes, data folders, TLS.
import type { CertificateFacts, ClusterFacts } from './cluster-facts.ts';
import type { ClusterSpec } from './cluster-spec.ts';
import { deprecatedIn36, flagValue, removedFlagsIn } from './flags.ts';
import { type CheckInput, commonServerVersion, type PlanCheck, type Verdict, verdict } from './plan-check.ts';
import { isOnMinor, minorOf } from './versions.ts';

/** The etcd guide: over 50 MB of v2 data, a newly upgraded member may need up to 2 minutes to catch up. */
export const V2_PACING_THRESHOLD_BYTES = 50 * 1024 * 1024;
/** Certificates expiring within this are reported by plan. */
export const CERTIFICATE_WARN_MS = 30 * 24 * 3600 * 1000;

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** The wait between members, and the verdict that explains it. */
export function v2Pacing(spec: ClusterSpec, facts: ClusterFacts): { pacingMs: number; verdict: Verdict } {
  const sizes = facts.members.map((m) => m.v2SnapshotBytes);
  const largest = Math.max(0, ...sizes.filter((s): s is number => s !== undefined));
  const unknownSize = sizes.some((s) => s === undefined);
  const { pacingSeconds, v2PacingSeconds } = spec.options;
  if (pacingSeconds !== undefined)
    return {
      pacingMs: pacingSeconds * 1000,
      verdict: verdict(
        'v2-data',
        'pass',
        `pacing set to ${pacingSeconds} s between members by options.pacingSeconds`,
      ),
    };
  if (largest > V2_PACING_THRESHOLD_BYTES || unknownSize) {
    const why = unknownSize
      ? 'v2 data size unknown (data folder not readable here)'
      : `v2 data ${mb(largest)} MB is over 50 MB`;
    return {
      pacingMs: v2PacingSeconds * 1000,
      verdict: verdict(
        'v2-data',
        'warn',
        `${why}: waiting ${v2PacingSeconds} s between members for the catch-up`,
      ),
    };
  }
  return {
    pacingMs: 0,
    verdict: verdict('v2-data', 'pass', `v2 data ${mb(largest)} MB (under 50 MB): no pacing needed`),
  };
}

const v2Data: PlanCheck = { name: 'v2-data', judge: ({ spec, facts }) => [v2Pacing(spec, facts).verdict] };

/**
 * The minors a route enters, in order; with no route (the members did not say what they run), the
 * minors of the cluster file's releases after binaries.current's (3.4 when it cannot be run here).
 */
export function minorsEntered(input: CheckInput): string[] {
  const releases =
    input.route.releases.length > 0
      ? input.route.releases
      : [
          input.facts.tools.current?.version ?? '3.4',
          ...input.spec.binaries.via.map((r) => r.version),
          input.target,
        ];
  const minors = releases.map((v) => minorOf(v) ?? v);
  return minors.filter((m, i) => i > 0 && m !== minors[i - 1]);
}

/** Flags a minor of the route removed (refused), and members without --logger (their log format changes on 3.5). */
const flags: PlanCheck = {
  name: 'removed-flags',
  judge(input) {
    const { spec } = input;
    const minors = minorsEntered(input);
    const out: Verdict[] = [];
    let removedAny = false;
    for (const member of spec.members) {
      let removedHere = 0;
      for (const minor of minors) {
        const removed = removedFlagsIn(member.parsedFlags, minor);
        for (const r of removed) {
          removedAny = true;
          removedHere++;
          const effect = minor === '3.5' ? `3.5.16 ${r.effect}` : r.effect;
          out.push(
            verdict(
              'removed-flags',
              'refuse',
              `${member.name} uses --${r.flag}${r.value ? `=${r.value}` : ''}, removed in ${minor} (${effect}); replace it with ${r.replacement}`,
            ),
          );
        }
      }
      if (minors.includes('3.6') && !minors.includes('3.7'))
        for (const d of deprecatedIn36(member.parsedFlags))
          out.push(
            verdict(
              'deprecated-flags',
              'warn',
              `${member.name} uses --${d.flag}, deprecated in 3.6 and removed in 3.7; 3.6 takes ${d.replacement}`,
            ),
          );
      if (
        minors.includes('3.5') &&
        flagValue(member.parsedFlags, 'logger') === undefined &&
        removedHere === 0
      )
        out.push(
          verdict(
            'logger',
            'warn',
            `${member.name} has no --logger: 3.4 logs as capnslog text, 3.5 as zap JSON; log parsers change format (set --logger=zap now to avoid it)`,
          ),
        );
    }
    if (!removedAny && minors.length > 0)
      out.push(verdict('removed-flags', 'pass', `no member uses a flag that ${minors.join(' or ')} removed`));
    return out;
  },
};

const binaries: PlanCheck = {
  name: 'binaries',
  judge({ facts, spec }) {
    const judge = (
      fact: { readonly version?: string; readonly error?: string } | undefined,
      label: string,
      expected: { minor?: string; exact?: string },
    ): Verdict[] => {
      if (!fact) return [];
      if (fact.error || !fact.version)
        return [verdict('binaries', 'refuse', `${label} cannot run: ${fact.error ?? 'no version'}`)];
      if (expected.exact && fact.version !== expected.exact)
        return [verdict('binaries', 'refuse', `${label} is ${fact.version}, expected ${expected.exact}`)];
      if (expected.minor && !isOnMinor(fact.version, expected.minor))
        return [verdict('binaries', 'refuse', `${label} is ${fact.version}, expected ${expected.minor}.x`)];
      return [verdict('binaries', 'pass', `${label} ${fact.version}`)];
    };
    const running = commonServerVersion(facts);
    const runningMinor = running ? minorOf(running) : undefined;
    // A cluster already on a release of binaries.via (a route continued) runs no binaries.current.
    const onVia = spec.binaries.via.some((r) => r.version === running);
    return [
      ...judge(facts.tools.current, 'binaries.current (etcd)', onVia ? {} : { minor: runningMinor }),
      ...spec.binaries.via.flatMap((r, i) =>
        judge(facts.tools.via?.[i], `binaries.via[${i}] (etcd)`, { exact: r.version }),
      ),
      ...judge(facts.tools.target, 'binaries.target (etcd)', {
        exact: spec.binaries.targetVersion,
      }),
      ...judge(facts.tools.etcdctl, 'binaries.etcdctl', {}),
      ...judge(facts.tools.etcdutl, 'binaries.etcdutl', {}),
    ];
  },
};

const processes: PlanCheck = {
  name: 'processes',
  judge({ facts }) {
    const seen = facts.members.filter((m) => m.processes !== undefined);
    if (seen.length === 0) return [];
    const problems: string[] = [];
    for (const m of seen) {
      const p = m.processes!;
      if ('error' in p) {
        problems.push(`${m.name}: the driver could not look for its process: ${p.error}`);
        continue;
      }
      if (p.found.length !== 1) {
        const pids = p.found.map((f) => f.pid).filter((pid) => pid !== undefined);
        problems.push(
          `${m.name}: ${p.found.length === 0 ? 'no' : p.found.length} running process${p.found.length > 1 ? 'es' : ''} found${pids.length > 0 ? ` (pids ${pids.join(', ')})` : ''}, expected exactly one; looked for ${p.lookedFor}`,
        );
        continue;
      }
      const diff = p.found[0]!.flagDifferences;
      if (diff.length > 0)
        problems.push(
          `${m.name} (pid ${p.found[0]!.pid}) runs with other flags than the cluster file, which every restart uses: ${diff.join('; ')}`,
        );
    }
    if (problems.length > 0) return [verdict('processes', 'refuse', problems.join('; '))];
    const named = seen.map((m) => {
      const pid = 'found' in m.processes! ? m.processes.found[0]?.pid : undefined;
      return pid === undefined ? m.name : `${m.name} pid ${pid}`;
    });
    return [
      verdict(
        'processes',
        'pass',
        `one running process per member, started with the cluster file's flags: ${named.join(', ')}`,
      ),
    ];
  },
};

/** The specification: a 3.2+ server panics restoring from snapshots when `member/snap/db` is missing. */
const v3Database: PlanCheck = {
  name: 'v3-database',
  judge({ facts }) {
    const checked = facts.members.filter((m) => m.v3Database !== undefined);
    if (checked.length === 0) return [];
    const missing = checked.filter((m) => m.v3Database!.exists === false);
    const silent = checked.filter((m) => m.v3Database!.error !== undefined);
    const unknown = checked.filter((m) => m.v3Database!.exists === undefined && !m.v3Database!.error);
    const out: Verdict[] = [];
    if (missing.length > 0)
      out.push(
        verdict(
          'v3-database',
          'refuse',
          missing
            .map(
              (m) =>
                `${m.name} has no v3 database (${m.v3Database!.file} is missing): a server migrated from v2 that never wrote v3 data panics when 3.2+ restores from its snapshots; do not upgrade this cluster until every member has v3 data`,
            )
            .join('; '),
        ),
      );
    if (silent.length > 0)
      out.push(
        verdict(
          'v3-database',
          'refuse',
          `unknown: could not look for the v3 database (member/snap/db) of ${silent.map((m) => `${m.name} (${m.v3Database!.error})`).join(', ')}; a member without it panics on 3.5`,
        ),
      );
    if (out.length > 0) return out;
    if (unknown.length > 0)
      return [
        verdict(
          'v3-database',
          'warn',
          `cannot tell whether ${unknown.map((m) => m.v3Database!.file).join(', ')} exist (set driver.check to look on the members' hosts); a member without it panics on 3.5`,
        ),
      ];
    return [verdict('v3-database', 'pass', `every member has its v3 database (member/snap/db)`)];
  },
};

const DAY_MS = 24 * 3600 * 1000;
const where = (c: CertificateFacts) => `${c.field}${c.file ? ` ${c.file}` : ''}`;
const isoDate = (ms: number) => new Date(ms).toISOString();

const tls: PlanCheck = {
  name: 'tls',
  judge({ spec, facts }) {
    if (!spec.tls) return [];
    const now = facts.checkedAt ?? 0;
    const all = [
      ...(facts.certificates ?? []),
      ...facts.members.flatMap((m) => (m.serverCertificate ? [m.serverCertificate] : [])),
    ];
    const loaded = all.filter((c) => c.error === undefined && c.notAfter !== undefined);
    const served = new Set(facts.members.flatMap((m) => (m.serverCertificate ? [m.serverCertificate] : [])));
    // A member's certificate that could not be fetched is unknown, not broken.
    const unread = all.filter((c) => c.error !== undefined && served.has(c));
    const broken = all.filter((c) => c.error !== undefined && !served.has(c));
    const expired = loaded.filter((c) => c.notAfter! <= now);
    const soon = loaded.filter((c) => c.notAfter! > now && c.notAfter! - now < CERTIFICATE_WARN_MS);
    const out: Verdict[] = [];
    if (broken.length > 0)
      out.push(
        verdict(
          'tls',
          'refuse',
          `certificates that do not load: ${broken.map((c) => `${where(c)}: ${c.error}`).join('; ')}`,
        ),
      );
    if (unread.length > 0)
      out.push(
        verdict(
          'tls',
          'refuse',
          `unknown: certificates that could not be read: ${unread.map((c) => `${where(c)}: ${c.error}`).join('; ')}`,
        ),
      );
    if (expired.length > 0)
      out.push(
        verdict(
          'tls',
          'refuse',
          `expired certificates: ${expired.map((c) => `${where(c)} (${c.subject}) expired ${isoDate(c.notAfter!)}`).join('; ')}`,
        ),
      );
    if (soon.length > 0)
      out.push(
        verdict(
          'tls',
          'warn',
          `certificates expiring within 30 days: ${soon
            .map(
              (c) =>
                `${where(c)} (${c.subject}) in ${Math.floor((c.notAfter! - now) / DAY_MS)} days, ${isoDate(c.notAfter!)}`,
            )
            .join('; ')}`,
        ),
      );
    if (out.length > 0) return out;
    const first = all.filter((c) => c.notAfter !== undefined).sort((a, b) => a.notAfter! - b.notAfter!)[0];
    const everyHandshake = facts.members.every((m) => m.health.ok);
    return [
      verdict(
        'tls',
        'pass',
        `${all.length} certificates load (${(facts.certificates ?? []).map((c) => `${c.field} ${c.subject}`).join(', ')})` +
          (first
            ? `; the first to expire is ${where(first)} on ${isoDate(first.notAfter!).slice(0, 10)}`
            : '') +
          (everyHandshake ? '; every member answers over TLS with them' : ''),
      ),
    ];
  },
};

/** In the order their verdicts are listed, after the cluster checks. */
export const HOST_CHECKS: readonly PlanCheck[] = Object.freeze([
  v2Data,
  flags,
  binaries,
  processes,
  v3Database,
  tls,
]);
