import { type Flag, flagValue, parseFlags, splitList } from './flags.ts';
import { isObj, NAME, type Problems } from './problems.ts';

export interface MemberSpec {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  /** Exactly what etcd is started with, before and after the upgrade. */
  readonly flags: readonly string[];
  readonly parsedFlags: readonly Flag[];
}

/** Resolves a path of the cluster file against the file's folder ('' when absent). */
export type PathResolver = (value: string | undefined) => string;

export function validateMembers(
  raw: unknown,
  p: Problems,
  path: PathResolver,
  options: { readonly oneHost: boolean },
): MemberSpec[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    p.add('members', 'is required: a list of members (name, clientUrl, peerUrl, dataDir, flags)');
    return [];
  }
  const members: MemberSpec[] = [];
  for (const [i, entry] of (raw as unknown[]).entries()) {
    const at = `members[${i}]`;
    if (!isObj(entry)) {
      p.add(at, 'must be a mapping with name, clientUrl, peerUrl, dataDir, flags');
      continue;
    }
    p.unknownKeys(at, entry, ['name', 'clientUrl', 'peerUrl', 'dataDir', 'flags']);
    const name = p.str(entry, 'name', `${at}.name`);
    if (name !== undefined && !NAME.test(name))
      p.add(`${at}.name`, `must be letters, digits, '.', '_' or '-', got ${JSON.stringify(name)}`);
    const clientUrl = p.url(entry, 'clientUrl', `${at}.clientUrl`);
    const peerUrl = p.url(entry, 'peerUrl', `${at}.peerUrl`);
    const dataDirText = p.str(entry, 'dataDir', `${at}.dataDir`);
    const dataDir = path(dataDirText);
    const flags = entry.flags;
    if (!Array.isArray(flags) || flags.some((f) => typeof f !== 'string' && typeof f !== 'number')) {
      p.add(
        `${at}.flags`,
        'is required: the list of flags the member runs with, e.g. [--name=m1, --data-dir=/var/lib/etcd]',
      );
      continue;
    }
    const args = flags.map(String);
    const parsed = parseFlags(args);
    if (!parsed.ok) {
      p.add(`${at}.flags[${parsed.index}]`, parsed.problem);
      continue;
    }
    const has = (flag: string) => flagValue(parsed.flags, flag);
    if (name !== undefined && has('name') !== name) {
      p.add(
        `${at}.flags`,
        `must set --name=${name} (the member's name), found ${JSON.stringify(has('name') ?? null)}`,
      );
    }
    if (dataDirText !== undefined) {
      const flagDir = has('data-dir');
      if (flagDir === undefined)
        p.add(`${at}.flags`, `must set --data-dir=${dataDirText} (the member's dataDir)`);
      else if (path(flagDir) !== dataDir)
        p.add(`${at}.flags`, `--data-dir=${flagDir} differs from ${at}.dataDir ${dataDirText}`);
    }
    const advertised = splitList(has('advertise-client-urls')).map(origin);
    if (clientUrl !== undefined && !advertised.includes(clientUrl)) {
      p.add(`${at}.flags`, `--advertise-client-urls must include the clientUrl ${clientUrl}`);
    }
    const peers = splitList(has('initial-advertise-peer-urls')).map(origin);
    if (peerUrl !== undefined && !peers.includes(peerUrl)) {
      p.add(`${at}.flags`, `--initial-advertise-peer-urls must include the peerUrl ${peerUrl}`);
    }
    if (name !== undefined && clientUrl !== undefined && peerUrl !== undefined) {
      members.push(
        Object.freeze({
          name,
          clientUrl,
          peerUrl,
          dataDir,
          flags: Object.freeze(args),
          parsedFlags: Object.freeze(parsed.flags),
        }),
      );
    }
  }
  const seen = (key: 'name' | 'clientUrl' | 'peerUrl' | 'dataDir', host: (m: MemberSpec) => string) => {
    const counts = new Map<string, { value: string; host: string; n: number }>();
    for (const m of members) {
      const at = `${host(m)} ${m[key]}`;
      const known = counts.get(at) ?? { value: m[key], host: host(m), n: 0 };
      counts.set(at, { ...known, n: known.n + 1 });
    }
    for (const { value, host: on, n } of counts.values())
      if (n > 1) p.add('members', `${key} ${value} is used by ${n} members${on ? ` on host ${on}` : ''}`);
  };
  for (const key of ['name', 'clientUrl', 'peerUrl'] as const) seen(key, () => '');
  // The local driver runs every member on this host; the command driver's members each on the host of its clientUrl.
  seen('dataDir', (m) => (options.oneHost ? '' : new URL(m.clientUrl).hostname));
  return members;
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
