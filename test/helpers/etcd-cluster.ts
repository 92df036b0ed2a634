import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import yaml from 'js-yaml';
import { loadClusterFile } from '../../services/kvupgrade/adapters/cluster-file.ts';
import { createEtcdHttp } from '../../services/kvupgrade/adapters/etcd-http.ts';
import { createLocalProcessDriver } from '../../services/kvupgrade/adapters/local-process-driver.ts';
import type { TlsMaterial } from '../../services/kvupgrade/adapters/tls.ts';
import { type ClusterSpec, validateClusterSpec } from '../../services/kvupgrade/domain/cluster-spec.ts';
import type { EtcdClient, MemberDriver } from '../../services/kvupgrade/ports.ts';
import { systemClock } from '../../shared/clock.ts';
import type { InfraEnv } from '../integration/global-setup.ts';
import { etcdTlsFlags, makeCertificates, type TestCertificates } from './etcd-tls.ts';
import { uniqueName } from './kafka.ts';
import { prepared } from './preparations.ts';
import { waitFor } from './wait-for.ts';

export interface TestMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  readonly flags: string[];
}

export interface EtcdTestCluster {
  readonly name: string;
  readonly dir: string;
  /** The cluster file kvupgrade reads. */
  readonly file: string;
  readonly raw: Record<string, unknown>;
  readonly spec: ClusterSpec;
  readonly members: readonly TestMember[];
  readonly driver: MemberDriver;
  /** Speaks TLS with the client certificate on a TLS cluster. */
  readonly etcd: EtcdClient;
  readonly certs: TestCertificates | undefined;
  readonly tls: TlsMaterial | undefined;
  readonly bin: {
    readonly etcd34: string;
    readonly etcd35: string;
    readonly etcdctl: string;
    readonly etcdutl: string;
    /** The folder of any release in the cache (3.4.23 ... 3.7.3). */
    readonly dirOf: (version: string) => string;
  };
  /** Starts every member on its first release (3.4.23 unless told) and waits until each is healthy with a leader. */
  start(): Promise<void>;
  /** Rewrites the cluster file (e.g. another target binary) and re-reads the spec. */
  rewrite(change: (raw: Record<string, unknown>) => void): Promise<EtcdTestCluster>;
  /**
   * The cluster built again from scratch in the same place, as a lab is recreated: every member
   * killed, its data folder, the run folder and the backups removed, then started on 3.4 with the
   * same flags (so the same member and cluster IDs, which etcd derives from peer URLs and token).
   */
  rebuild(): Promise<void>;
  /** Kills every member process this cluster ever started (whoever started it) and removes the folder. */
  destroy(): Promise<void>;
}

/** Whether nothing listens on 127.0.0.1:port (a listen succeeds). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * `preferred` when its client and peer ports are all free, otherwise another base in 25000-31900:
 * other engineers run the same test files on this machine, with the same preferred ports.
 */
async function freeBasePort(preferred: number, size: number): Promise<number> {
  const ports = (base: number) => Array.from({ length: size }, (_, i) => [base + i, base + 10 + i]).flat();
  const allFree = async (base: number) => (await Promise.all(ports(base).map(portFree))).every(Boolean);
  if (await allFree(preferred)) return preferred;
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 25_000 + 100 * Math.floor(Math.random() * 70);
    if (await allFree(base)) return base;
  }
  throw new Error(`no free ports for an etcd cluster near ${preferred}`);
}

type ClusterReleases = Pick<Parameters<typeof createEtcdCluster>[0], 'release' | 'target' | 'via' | 'tools'>;

/** Whether the cluster names a release Debian does not package (built by the 'etcd-releases' step). */
export function releasesToBuild(options: ClusterReleases): boolean {
  const { release = '3.4.23', target = '3.5.16', via = [], tools = '3.5.16' } = options;
  return [release, target, ...via, tools].some((v) => v !== '3.4.23' && v !== '3.5.16');
}

/**
 * A real etcd cluster of the Debian binaries on 127.0.0.1: client ports base+i, peer ports
 * base+10+i, data and logs under a temp folder. `basePort` is a preference per test file
 * (23xxx-24xxx); when any of its ports is taken, free ones are picked (read the URLs from `members`).
 */
export async function createEtcdCluster(options: {
  readonly infra: InfraEnv;
  readonly basePort: number;
  readonly size?: number;
  readonly extraFlags?: (index: number) => string[];
  readonly options?: Record<string, unknown>;
  /** Client and peer TLS with client certificate authentication (certificates made with openssl). */
  readonly tls?: boolean;
  /** The release the members start on (binaries.current; default 3.4.23), the target (default 3.5.16), releases between. */
  readonly release?: string;
  readonly target?: string;
  readonly via?: readonly string[];
  /** Whose etcdctl and etcdutl the cluster file names (default 3.5.16). */
  readonly tools?: string;
}): Promise<EtcdTestCluster> {
  const { infra, size = 3 } = options;
  const basePort = await freeBasePort(options.basePort, size);
  const name = uniqueName('etcd');
  const dir = await mkdtemp(join(tmpdir(), 'kvupgrade-'));
  const certs = options.tls ? await makeCertificates(join(dir, 'tls')) : undefined;
  const scheme = certs ? 'https' : 'http';
  const releases = new Map(
    (infra.ETCD_RELEASES ?? '').split(',').map((pair) => pair.split('=') as [string, string]),
  );
  releases.set('3.4.23', infra.ETCD34_BIN_DIR).set('3.5.16', infra.ETCD35_BIN_DIR);
  const dirOf = (version: string) => {
    const found = releases.get(version);
    if (!found) throw new Error(`etcd ${version} is not in the cache (infra.sh env: ETCD_RELEASES)`);
    return found;
  };
  const { release = '3.4.23', target = '3.5.16', via = [], tools = '3.5.16' } = options;
  // Releases Debian does not package are built once (the integration setup starts that early).
  if (releasesToBuild(options)) await prepared('etcd-releases');
  const bin = {
    etcd34: join(dirOf(release), 'etcd'),
    etcd35: join(dirOf(target), 'etcd'),
    etcdctl: join(dirOf(tools), 'etcdctl'),
    etcdutl: join(dirOf(tools), 'etcdutl'),
    dirOf,
  };
  const names = Array.from({ length: size }, (_, i) => `m${i + 1}`);
  const peer = (i: number) => `${scheme}://127.0.0.1:${basePort + 10 + i}`;
  const initialCluster = names.map((n, i) => `${n}=${peer(i)}`).join(',');
  const members: TestMember[] = names.map((n, i) => {
    const clientUrl = `${scheme}://127.0.0.1:${basePort + i}`;
    const dataDir = join(dir, `${n}.etcd`);
    return {
      name: n,
      clientUrl,
      peerUrl: peer(i),
      dataDir,
      flags: [
        `--name=${n}`,
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${clientUrl}`,
        `--advertise-client-urls=${clientUrl}`,
        `--listen-peer-urls=${peer(i)}`,
        `--initial-advertise-peer-urls=${peer(i)}`,
        `--initial-cluster=${initialCluster}`,
        `--initial-cluster-token=${name}`,
        '--initial-cluster-state=new',
        ...(certs ? etcdTlsFlags(certs) : []),
        ...(options.extraFlags?.(i) ?? ['--logger=zap', '--log-outputs=stderr']),
      ],
    };
  });
  const raw: Record<string, unknown> = {
    cluster: name,
    binaries: {
      current: bin.etcd34,
      target: bin.etcd35,
      ...(via.length > 0 ? { via: via.map((v) => ({ version: v, etcd: join(dirOf(v), 'etcd') })) } : {}),
      etcdctl: bin.etcdctl,
      etcdutl: bin.etcdutl,
    },
    backupDir: join(dir, 'backups'),
    driver: { kind: 'local', runDir: join(dir, 'run') },
    members: members.map(({ name: n, clientUrl, peerUrl, dataDir, flags }) => ({
      name: n,
      clientUrl,
      peerUrl,
      dataDir,
      flags,
    })),
    ...(certs ? { tls: { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey } } : {}),
    options: {
      stopTimeoutSeconds: 5,
      gateTimeoutSeconds: 20,
      clusterVersionTimeoutSeconds: 20,
      pollIntervalMs: 50,
      v2PacingSeconds: 0,
      ...options.options,
    },
  };
  const file = join(dir, 'cluster.yaml');
  const driver = createLocalProcessDriver({
    runDir: join(dir, 'run'),
    etcdutl: bin.etcdutl,
    clock: systemClock,
  });
  await writeFile(file, yaml.dump(raw));
  const tlsMaterial = (await loadClusterFile(file)).tls;
  const etcd = createEtcdHttp({ timeoutMs: 1000, ...(tlsMaterial ? { tls: tlsMaterial } : {}) });

  async function build(): Promise<EtcdTestCluster> {
    await writeFile(file, yaml.dump(raw));
    const outcome = validateClusterSpec(raw, dir);
    if (!outcome.ok) throw new Error(`test cluster file is invalid: ${outcome.problems.join('; ')}`);
    const spec = outcome.spec;
    const start = async () => {
      await Promise.all(spec.members.map((m) => driver.start(m, bin.etcd34, release)));
      await waitForHealthy(etcd, members);
    };
    return {
      name,
      dir,
      file,
      raw,
      spec,
      members,
      driver,
      etcd,
      bin,
      certs,
      tls: tlsMaterial,
      start,
      async rebuild() {
        await killAll(dir);
        const gone = [...members.map((m) => m.dataDir), join(dir, 'run'), join(dir, 'backups')];
        await Promise.all(gone.map((path) => rm(path, { recursive: true, force: true })));
        await start();
      },
      async rewrite(change) {
        change(raw);
        return build();
      },
      async destroy() {
        await killAll(dir);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  return build();
}

export async function waitForHealthy(
  etcd: EtcdClient,
  members: readonly TestMember[],
  timeoutMs = 20_000,
): Promise<void> {
  await waitFor(
    'every member healthy with a leader',
    async () => {
      const checks = await Promise.all(
        members.map((m) =>
          etcd.quorumRead(m.clientUrl).then(
            () => true,
            () => false,
          ),
        ),
      );
      return checks.every(Boolean);
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** SIGKILL for every process whose command line names the cluster's folder (its members, however started). */
async function killAll(dir: string): Promise<void> {
  const pids = (await readdir('/proc')).filter((d) => /^\d+$/.test(d)).map(Number);
  const ours: number[] = [];
  for (const pid of pids) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (pid !== process.pid && cmdline.includes(`${dir}/`) && cmdline.includes('--data-dir')) ours.push(pid);
  }
  for (const pid of ours) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  for (const pid of ours)
    for (let i = 0; i < 100 && (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')) !== ''; i++)
      await sleep(20);
}
