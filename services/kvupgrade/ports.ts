import type { MemberSpec } from './domain/member-spec.ts';
import type { UpgradeProgress } from './domain/progress.ts';

/** Starts and stops one member's etcd process; knows where its logs and data folder are. */
export interface MemberDriver {
  /**
   * Starts etcd from `binary` with the member's flags, unchanged. Resolves once the process is
   * launched (not yet healthy); rejects with UNAVAILABLE when it cannot be launched, and with
   * FAILED_PRECONDITION when a process of the member still runs (its PID file is kept).
   */
  start(member: MemberSpec, binary: string, version: string): Promise<void>;
  /**
   * SIGINT (graceful: a leader hands off leadership), waits up to `deadlineMs`, then escalates
   * (SIGKILL). Resolves when the process is gone; a member that is not running is not an error.
   * Rejects with FAILED_PRECONDITION when several processes are the member (it cannot tell which).
   */
  stop(member: MemberSpec, deadlineMs: number): Promise<{ readonly escalated: boolean }>;
  /**
   * The running processes that are this member (its --name and --data-dir, as etcd parses them),
   * each with how its flags differ from the cluster file's; `lookedFor` says how they were searched.
   */
  processes(member: MemberSpec): Promise<ProcessSighting>;
  /**
   * Whether a file exists on the member's host; undefined when this driver has no way to look.
   * Rejects with UNAVAILABLE when it looked and had no answer (permission denied, ssh failing).
   */
  fileExists(member: MemberSpec, file: string): Promise<boolean | undefined>;
  /**
   * Something that changes when the member's data folder is made anew (a cluster built again in the
   * same place); undefined when the folder is missing or this driver cannot tell.
   */
  dataDirId(member: MemberSpec): Promise<string | undefined>;
  /** Whether the member's process runs; `exit` describes how it ended, when known. */
  status(member: MemberSpec): Promise<{ readonly running: boolean; readonly exit?: string }>;
  /** Log lines written since the previous call (the first call starts at the end). */
  drainLogs(member: MemberSpec): Promise<string[]>;
  /** The last lines of the member's log, for error messages; empty when the driver has none. */
  tailLogs(member: MemberSpec, lines: number): Promise<string[]>;
  /**
   * Replaces the member's data folder with the snapshot's content: restores into a new folder, then
   * moves the old one aside (never deleted) and the new one into place. The member must be stopped.
   */
  restoreData(member: MemberSpec, restore: RestoreRequest): Promise<{ readonly movedAside: string }>;
  /**
   * `etcdutl check v2store` (a 3.5 etcdutl: 3.6 and 3.7 have no such command) on the member's data folder (not in use: the member is stopped): whether
   * the v2 store holds custom (non-membership) content, with etcdutl's words. Undefined when this
   * driver cannot run it; rejects with UNAVAILABLE when etcdutl could not run.
   */
  checkV2store(
    member: MemberSpec,
    etcdutl: string,
  ): Promise<{ readonly clean: boolean; readonly detail: string } | undefined>;
}

export interface ProcessSighting {
  readonly lookedFor: string;
  readonly found: readonly {
    /** Undefined when the driver sees that it runs but not its PID (the command driver). */
    readonly pid?: number;
    /** How its flags differ from the cluster file's (empty: the same, as etcd parses them). */
    readonly flagDifferences: readonly string[];
  }[];
}

export interface RestoreRequest {
  readonly snapshot: string;
  readonly initialCluster: string;
  readonly initialClusterToken: string;
}

export interface MemberStatus {
  /** uint64 IDs as decimal strings: a JS number would corrupt them. */
  readonly memberId: string;
  readonly clusterId: string;
  readonly leaderId: string;
  readonly revision: number;
  readonly raftIndex: number;
  readonly version: string;
  /** The version of the member's data file (3.6 on; undefined before). */
  readonly storageVersion?: string;
  /** A downgrade the cluster is enabled for (3.6 on; undefined when none or before 3.6). */
  readonly downgradeTarget?: string;
}

export interface ClusterMember {
  readonly id: string;
  readonly name: string;
  readonly peerUrls: readonly string[];
  readonly clientUrls: readonly string[];
  readonly isLearner: boolean;
}

/**
 * etcd's HTTP endpoints and v3 JSON gateway on one client URL. Failures reject with UNAVAILABLE;
 * no answer within the request timeout rejects with DEADLINE_EXCEEDED.
 */
export interface EtcdClient {
  /** The server certificate on an https client URL (undefined on http); rejects with UNAVAILABLE. */
  certificate(url: string): Promise<{ readonly subject: string; readonly notAfter: number } | undefined>;
  /** `/health` says `"health":"true"` (a string). */
  health(url: string): Promise<boolean>;
  /** `storage` is the data file's version, reported from 3.6 on. */
  version(
    url: string,
  ): Promise<{ readonly server: string; readonly cluster: string; readonly storage?: string }>;
  /** `etcd_server_is_leader` from `/metrics`. */
  isLeader(url: string): Promise<boolean>;
  /**
   * A linearizable range through this member: succeeds only with a quorum. Rejects with
   * FAILED_PRECONDITION and `authRequired` when auth is on and no credentials were given.
   */
  quorumRead(url: string): Promise<{ readonly revision: number }>;
  /** Whether the member refuses a read without credentials ("user name is empty"), whatever credentials this client has. */
  authEnabled(url: string): Promise<boolean>;
  status(url: string): Promise<MemberStatus>;
  memberList(url: string): Promise<ClusterMember[]>;
  /** Whether something accepts TCP connections on the URL's host and port. */
  accepting(url: string): Promise<boolean>;
  /** Forgets the auth token of a member: a restarted member no longer knows it (3.4 takes ~2 s to say so). */
  forgetToken(url: string): void;
  /** Must be sent to the leader; resolves once leadership moved. */
  moveLeader(leaderUrl: string, targetId: string): Promise<void>;
  /**
   * etcd's downgrade API (3.5 on; what `etcdctl downgrade validate|enable|cancel <version>` sends):
   * resolves with the cluster version it answered; rejects with FAILED_PRECONDITION and etcd's words.
   */
  downgrade(url: string, action: 'validate' | 'enable' | 'cancel', version: string): Promise<string>;
}

export interface SnapshotStatus {
  readonly hash: number;
  readonly revision: number;
  readonly totalKeys: number;
  readonly totalBytes: number;
}

/** The version a binary reports (`etcd --version`, `etcdctl version`), or why it could not run; never rejects. */
export type BinaryVersion = (
  file: string,
  args: readonly string[],
) => Promise<{ readonly version?: string; readonly error?: string }>;

/** etcdctl / etcdutl, run as processes. */
export interface SnapshotTool {
  /** `etcdctl snapshot save` against one endpoint (the leader); creates the file's folder when missing. */
  save(endpoint: string, file: string): Promise<void>;
  /** `etcdutl snapshot status`: reads the whole file and checks it. */
  status(file: string): Promise<SnapshotStatus>;
}

/** The cluster's events on kv.upgrade-progress. */
export interface ProgressLog {
  /** Resolves once the broker acknowledged every event (acks=all), in order. */
  publish(events: readonly UpgradeProgress[]): Promise<void>;
  /** Every event of the cluster, oldest first, up to the end of the topic when called. */
  read(cluster: string): Promise<UpgradeProgress[]>;
}
