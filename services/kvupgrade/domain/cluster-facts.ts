/** What the orchestrator learned about one member, before deciding anything. */
export interface MemberFacts {
  readonly name: string;
  /** `/health` answered `"health":"true"`; otherwise why not. */
  readonly health: { readonly ok: true } | { readonly ok: false; readonly error: string };
  readonly version:
    | { readonly ok: true; readonly server: string; readonly cluster: string }
    | { readonly ok: false; readonly error: string };
  /** From `etcd_server_is_leader`; undefined when /metrics did not answer. */
  readonly isLeader: boolean | undefined;
  /** A linearizable range through this member (needs a quorum). */
  readonly quorumRead:
    | { readonly ok: true; readonly revision: number }
    | { readonly ok: false; readonly error: string; readonly authRequired: boolean };
  /** Member ID as the decimal string the gateway gives (a uint64, never a JS number). */
  readonly memberId: string | undefined;
  /** The data file's version and a downgrade the cluster is enabled for, from its status (3.6 on). */
  readonly storageVersion?: string;
  readonly downgradeTarget?: string;
  /** Size of the newest v2 store snapshot in the data folder; undefined when it cannot be read from here. */
  readonly v2SnapshotBytes: number | undefined;
  /** The processes the driver found for the member; undefined when not looked for. */
  readonly processes?:
    | {
        readonly lookedFor: string;
        readonly found: readonly { readonly pid?: number; readonly flagDifferences: readonly string[] }[];
      }
    | { readonly error: string };
  /**
   * `<dataDir>/member/snap/db`: exists true/false; undefined when the driver has no way to look
   * (then `error` says why, when it looked and had no answer).
   */
  readonly v3Database?: {
    readonly file: string;
    readonly exists: boolean | undefined;
    readonly error?: string;
  };
  /** The certificate the member serves on its https client URL. */
  readonly serverCertificate?: CertificateFacts;
  /** The endpoints that gave no answer within the request timeout (a busy member, or a hung one). */
  readonly unanswered?: readonly string[];
}

/** One certificate of the tls block or of a member: parsed, or why not; expiry in epoch ms. */
export interface CertificateFacts {
  /** `tls.ca`, `tls.cert`, or the member's name for its server certificate. */
  readonly field: string;
  readonly file?: string;
  readonly subject?: string;
  readonly notAfter?: number;
  readonly error?: string;
}

export interface ToolFacts {
  /** Reported version, or why the binary could not be run; undefined when not checked (remote driver). */
  readonly current?: { readonly version?: string; readonly error?: string };
  readonly target?: { readonly version?: string; readonly error?: string };
  /** binaries.via, in order (local driver only). */
  readonly via?: readonly { readonly version?: string; readonly error?: string }[];
  readonly etcdctl?: { readonly version?: string; readonly error?: string };
  readonly etcdutl?: { readonly version?: string; readonly error?: string };
}

export interface ClusterFacts {
  readonly members: readonly MemberFacts[];
  /** `member list` from any member: names and peer URLs; undefined when no member answered. */
  readonly memberList:
    | readonly {
        readonly id: string;
        readonly name: string;
        readonly peerUrls: readonly string[];
        readonly isLearner?: boolean;
      }[]
    | undefined;
  readonly tools: ToolFacts;
  /** A read without credentials is refused; undefined when no member answered (then nothing is known). */
  readonly authEnabled: boolean | undefined;
  /** The tls block's certificates (undefined without a tls block). */
  readonly certificates?: readonly CertificateFacts[];
  /** When the facts were gathered (epoch ms): what certificate expiry is measured from. */
  readonly checkedAt?: number;
}

/** The members whose `/version` answered, with what they said. */
export const answeredVersions = (facts: ClusterFacts) =>
  facts.members.flatMap((m) => (m.version.ok ? [{ name: m.name, ...m.version }] : []));

/**
 * Why these facts may show a passing moment rather than the cluster: a member too busy to answer in
 * time, or no single leader while every member said whether it leads (an election under way).
 * Undefined when they show neither; a member that refuses connections is not a moment.
 */
export function momentaryReason(facts: ClusterFacts): string | undefined {
  const slow = facts.members.filter((m) => (m.unanswered ?? []).length > 0);
  if (slow.length > 0)
    return `no answer in time from ${slow.map((m) => `${m.name} (${m.unanswered!.join(', ')})`).join(', ')}`;
  const leaders = facts.members.filter((m) => m.isLeader === true).length;
  if (facts.members.every((m) => m.isLeader !== undefined) && leaders !== 1)
    return leaders === 0
      ? 'no member leads (an election may be under way)'
      : `${leaders} members say they lead`;
  return undefined;
}
