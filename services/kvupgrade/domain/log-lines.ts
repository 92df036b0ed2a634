/** A member log line worth an event: what it means, in one line a person can read. */
export interface LogSignal {
  readonly step: string;
  readonly message: string;
  /** A version the line names (etcd-version, the new cluster version). */
  readonly version?: string;
  readonly error?: string;
  /** When the member wrote it (epoch ms), when the line says. */
  readonly at?: number;
}

/** zap's `ts`: ISO text (3.5, and 3.4 servers) or float epoch seconds (3.4 tools). */
function timeOf(ts: unknown): number | undefined {
  if (typeof ts === 'number' && Number.isFinite(ts)) return Math.round(ts * 1000);
  if (typeof ts === 'string') {
    const ms = Date.parse(ts);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

type Fields = Record<string, unknown>;
const text = (f: Fields, key: string): string | undefined =>
  typeof f[key] === 'string' ? (f[key] as string) : undefined;

/** zap JSON messages (3.4 with --logger=zap, and 3.5) → meaning. */
const ZAP: Record<string, (f: Fields, raw: string) => LogSignal> = {
  'received signal; shutting down': (f) => ({
    step: 'signal-received',
    message: `received ${text(f, 'signal') ?? 'a signal'}; shutting down`,
  }),
  'leadership transfer starting': (f) => ({
    step: 'leadership-transfer-started',
    message: `leadership transfer starting to ${text(f, 'transferee-member-id') ?? '?'}`,
  }),
  'leadership transfer finished': (f) => ({
    step: 'leadership-transfer-finished',
    message: `leadership transferred to ${text(f, 'new-leader-member-id') ?? '?'} (took ${text(f, 'took') ?? '?'})`,
  }),
  'leadership transfer failed': (f) => ({
    step: 'leadership-transfer-failed',
    message: 'leadership transfer failed',
    error: text(f, 'error'),
  }),
  'closed etcd server': () => ({ step: 'server-closed', message: 'closed etcd server' }),
  'starting an etcd server': (f) => ({
    step: 'server-starting',
    message: `starting etcd ${text(f, 'etcd-version') ?? ''}`.trim(),
    version: text(f, 'etcd-version'),
  }),
  'published local member to cluster through raft': () => ({
    step: 'member-published',
    message: 'published local member to cluster through raft',
  }),
  'ready to serve client requests': () => ({
    step: 'member-ready',
    message: 'ready to serve client requests',
  }),
  'leader found higher-versioned member': (f) => ({
    step: 'leader-found-higher-version',
    message: `3.4 leader sees member ${text(f, 'remote-member-id') ?? '?'} on ${text(f, 'remote-member-version') ?? '?'}`,
    version: text(f, 'remote-member-version'),
  }),
  'updated cluster version': (_f, raw) => {
    // 3.4 writes the new version under a second "from" key (JSON.parse keeps only the last).
    const froms = [...raw.matchAll(/"from":"([^"]*)"/g)].map((m) => m[1]!);
    const to = /"to":"([^"]*)"/.exec(raw)?.[1] ?? (froms.length > 1 ? froms.at(-1) : undefined);
    return {
      step: 'updated-cluster-version',
      message: `updated cluster version from ${froms[0] ?? '?'} to ${to ?? '?'}`,
      version: to,
    };
  },
  'cluster version is updated': (f) => ({
    step: 'cluster-version-finished',
    message: `cluster version is updated to ${text(f, 'cluster-version') ?? '?'}`,
    version: text(f, 'cluster-version'),
  }),
  'enabled capabilities for version': (f) => ({
    step: 'capabilities-enabled',
    message: `enabled capabilities for version ${text(f, 'cluster-version') ?? '?'}`,
    version: text(f, 'cluster-version'),
  }),
  'invalid downgrade; server version is lower than determined cluster version': (f) => ({
    step: 'invalid-downgrade',
    message: `invalid downgrade: ${text(f, 'current-server-version') ?? '?'} is lower than the cluster version ${text(f, 'determined-cluster-version') ?? '?'}`,
    error: 'invalid downgrade; server version is lower than determined cluster version',
  }),
  'failed to verify flags': (f) => ({
    step: 'flags-rejected',
    message: 'failed to verify flags',
    error: text(f, 'error'),
  }),
};

/** capnslog text (3.4's default logger): `2026-11-22 04:58:28.953061 W | etcdserver: ...`. */
const CAPNSLOG: readonly [RegExp, (m: RegExpExecArray) => LogSignal][] = [
  [
    /received (\w+) signal, shutting down/,
    (m) => ({ step: 'signal-received', message: `received ${m[1]} signal; shutting down` }),
  ],
  [
    /starts leadership transfer from \w+ to (\w+)/,
    (m) => ({ step: 'leadership-transfer-started', message: `leadership transfer starting to ${m[1]}` }),
  ],
  [
    /finished leadership transfer from \w+ to (\w+) \(took ([^)]*)\)/,
    (m) => ({
      step: 'leadership-transfer-finished',
      message: `leadership transferred to ${m[1]} (took ${m[2]})`,
    }),
  ],
  [
    /published \{Name:(\S+) .* to cluster/,
    (m) => ({ step: 'member-published', message: `published ${m[1]} to the cluster` }),
  ],
  [
    /member (\w+) has a higher version (\S+)/,
    (m) => ({
      step: 'leader-found-higher-version',
      message: `3.4 leader sees member ${m[1]} on ${m[2]}`,
      version: m[2],
    }),
  ],
  [
    /updated the cluster version from (\S+) to (\S+)/,
    (m) => ({
      step: 'updated-cluster-version',
      message: `updated cluster version from ${m[1]} to ${m[2]}`,
      version: m[2],
    }),
  ],
  [
    /enabled capabilities for version (\S+)/,
    (m) => ({
      step: 'capabilities-enabled',
      message: `enabled capabilities for version ${m[1]}`,
      version: m[1],
    }),
  ],
  [
    /cluster cannot be downgraded \(current version: (\S+) is lower than determined cluster version: ([^)]+)\)/,
    (m) => ({
      step: 'invalid-downgrade',
      message: `invalid downgrade: ${m[1]} is lower than the cluster version ${m[2]}`,
      error: m[0],
    }),
  ],
];

/** What a member's log line means for the upgrade; undefined for the rest (most lines). Tolerates non-JSON lines. */
export function classifyLogLine(raw: string): LogSignal | undefined {
  const line = raw.trim();
  if (line.startsWith('{')) {
    let fields: Fields;
    try {
      fields = JSON.parse(line) as Fields;
    } catch {
      return undefined;
    }
    const msg = text(fields, 'msg');
    const signal = msg === undefined ? undefined : ZAP[msg]?.(fields, line);
    const at = timeOf(fields.ts);
    return signal && at !== undefined ? { ...signal, at } : signal;
  }
  const flagError = /^flag provided but not defined: (-\S+)/.exec(line);
  if (flagError)
    return { step: 'flags-rejected', message: `etcd refused the flag ${flagError[1]}`, error: line };
  for (const [pattern, signal] of CAPNSLOG) {
    const match = pattern.exec(line);
    if (match) return signal(match);
  }
  return undefined;
}
