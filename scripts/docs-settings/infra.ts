// The variables of the infrastructure scripts (scripts/infra.sh, scripts/infra/*.sh,
// scripts/bench-infra.sh), read from their `${NAME:-default}` declarations: shell has no place for
// a meaning, so the meanings are kept here, by variable, and a variable without one (or a meaning
// whose variable the scripts no longer read) stops the generator.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { code, type SettingRow } from './render.ts';

export const INFRA_MEANINGS: Readonly<Record<string, string>> = {
  INFRA_PROFILE:
    '`product`, `test` or `bench`: other ports and data, so the tests and the benchmarks never write into what `npm start` shows ([profiles](../infrastructure.md#profiles))',
  INFRA_PORT_SHIFT:
    "added to every default port in place of the profile's shift: a second checkout on the same machine (a git worktree) runs on servers of its own; its data stay under its own `.infra`",
  INFRA_HOME: 'root of data, logs and pid files',
  INFRA_CACHE: 'downloads (Kafka jars, etcd, Debian packages), shared by every profile',
  INFRA_DATA: 'server data',
  INFRA_LOGS: 'server logs (`<server>.log`, named by every failure)',
  KAFKA_PORT: 'the broker listener',
  KAFKA_CONTROLLER_PORT: 'the KRaft controller listener',
  KAFKA_CLUSTER_PORT:
    'first node of `kafka-cluster`: node *i* listens on this + 2(*i*−1), its controller on the port after',
  KAFKA_VERSION: 'Kafka jars fetched from Maven Central',
  KAFKA_HEAP_OPTS:
    'JVM options of the single broker; `$JVM_TUNING` is `-XX:+UseSerialGC -XX:TieredStopAtLevel=1` in the test profile (half the CPU of a broker that lives minutes), `-XX:+UseG1GC` in the others',
  KAFKA_CLUSTER_HEAP_OPTS: 'JVM options of each `kafka-cluster` node (`$JVM_TUNING` as above)',
  REDIS_PORT: 'Redis (keeps nothing on disk)',
  MEMCACHED_PORT: 'memcached',
  POSTGRES_PORT: 'PostgreSQL',
  POSTGRES_USER: "the project's role, created on `up`",
  POSTGRES_PASSWORD: "the role's password",
  POSTGRES_DB: "the project's database, created on `up`",
  ETCD34_DEB_VERSION:
    "the Debian bookworm package etcd 3.4.23 is taken from (`apt-get download`, `dpkg -x` into the cache; 3.5.16 comes from trixie's)",
  ETCD_BUILT_VERSIONS:
    'the etcd releases built from source with Go into the cache (space-separated) for the test and bench profiles or `up etcd`; `env` lists every release in the cache as `ETCD_RELEASES`',
  INFRA_START_TIMEOUT: 'seconds to wait for a server to answer',
  POSTGRES_DATA_DIR:
    'cluster folder; empty: `$INFRA_DATA/postgres` (owned by the `postgres` user when run as root; under `/var/tmp` if that user cannot reach `$INFRA_DATA`); its log is linked from `$INFRA_LOGS/postgres.log`',
  BENCH_KEEP_INFRA:
    "`1`: `scripts/bench-infra.sh` leaves the bench profile's servers running after a bench (`INFRA_PROFILE=bench bash scripts/infra.sh down` stops them)",
};

/** The scripts, in the order their variables are listed. */
function scripts(root: string): string[] {
  const parts = readdirSync(join(root, 'scripts', 'infra'))
    .filter((f) => f.endsWith('.sh'))
    .sort()
    .map((f) => join('scripts', 'infra', f));
  return [join('scripts', 'infra.sh'), ...parts, join('scripts', 'bench-infra.sh')];
}

/** `product) PORT_SHIFT=0; PROFILE_HOME=$ROOT/.infra ;;` → each profile's shift and home. */
function profiles(infraSh: string): Array<{ name: string; shift: string; home: string }> {
  return [...infraSh.matchAll(/^\s*(\w+)\) PORT_SHIFT=(\d+); PROFILE_HOME=\$ROOT\/(\S+) ;;$/gm)].map((m) => ({
    name: m[1]!,
    shift: m[2]!,
    home: m[3]!,
  }));
}

/** A shell default as a reader needs it: the profile's shift and home spelled out, `$ROOT/` dropped. */
function shellDefault(text: string, known: ReturnType<typeof profiles>): string {
  if (text === '') return '(unset)';
  if (text === '$PORT_SHIFT')
    return `the profile's: ${known.map((p) => `${code(p.shift)} (${p.name})`).join(', ')}`;
  if (text === '$PROFILE_HOME') return known.map((p) => `${code(p.home)} (${p.name})`).join(', ');
  const shifted = /^\$\(\((\d+) \+ PORT_SHIFT\)\)$/.exec(text);
  if (shifted) return `${code(shifted[1]!)} + the port shift`;
  return code(text.replace(/^\$ROOT\//, ''));
}

/** Every variable the scripts read with a default, in order, with its meaning. */
export function infraRows(
  root: string,
  meanings: Readonly<Record<string, string>> = INFRA_MEANINGS,
): SettingRow[] {
  const known = profiles(readFileSync(join(root, 'scripts', 'infra.sh'), 'utf8'));
  const seen = new Map<string, string>();
  for (const script of scripts(root))
    for (const m of readFileSync(join(root, script), 'utf8').matchAll(/\$\{([A-Z][A-Z0-9_]*):-([^}]*)\}/g))
      if (!seen.has(m[1]!)) seen.set(m[1]!, m[2]!);
  const unread = Object.keys(meanings).filter((v) => !seen.has(v));
  if (unread.length > 0)
    throw new Error(
      `scripts/docs-settings/infra.ts has meanings for ${unread.join(', ')}, which no script reads`,
    );
  return [...seen].map(([variable, text]) => {
    const meaning = meanings[variable];
    if (meaning === undefined)
      throw new Error(
        `${variable} (read by the infrastructure scripts) has no meaning in scripts/docs-settings/infra.ts`,
      );
    return { variable: code(variable), default: shellDefault(text, known), meaning };
  });
}
