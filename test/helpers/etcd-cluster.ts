import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import yaml from 'js-yaml';
import { createEtcdHttp } from '../../services/kvupgrade/adapters/etcd-http.ts';
import { createLocalProcessDriver } from '../../services/kvupgrade/adapters/local-process-driver.ts';
import { type ClusterSpec, validateClusterSpec } from '../../services/kvupgrade/domain/cluster-spec.ts';
import type { EtcdClient, MemberDriver } from '../../services/kvupgrade/ports.ts';
import { systemClock } from '../../shared/clock.ts';
import type { InfraEnv } from '../integration/global-setup.ts';
import { uniqueName } from './kafka.ts';
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
  readonly etcd: EtcdClient;
  readonly bin: {
    readonly etcd34: string;
    readonly etcd35: string;
    readonly etcdctl: string;
    readonly etcdutl: string;
  };
  /** Starts every member on 3.4 and waits until each is healthy with a leader. */
  start(): Promise<void>;
  /** Rewrites the cluster file (e.g. another target binary) and re-reads the spec. */
  rewrite(change: (raw: Record<string, unknown>) => void): Promise<EtcdTestCluster>;
  /** Kills every member process this cluster ever started (whoever started it) and removes the folder. */
  destroy(): Promise<void>;
}

/**
 * A real etcd cluster of the Debian binaries on 127.0.0.1: client ports basePort+i, peer ports
 * basePort+10+i, data and logs under a temp folder. Choose a basePort per test file (23xxx-24xxx).
 */
export async function createEtcdCluster(options: {
  readonly infra: InfraEnv;
  readonly basePort: number;
  readonly size?: number;
  readonly extraFlags?: (index: number) => string[];
  readonly options?: Record<string, unknown>;
}): Promise<EtcdTestCluster> {
  const { infra, basePort, size = 3 } = options;
  const name = uniqueName('etcd');
  const dir = await mkdtemp(join(tmpdir(), 'kvupgrade-'));
  const bin = {
    etcd34: join(infra.ETCD34_BIN_DIR, 'etcd'),
    etcd35: join(infra.ETCD35_BIN_DIR, 'etcd'),
    etcdctl: join(infra.ETCD35_BIN_DIR, 'etcdctl'),
    etcdutl: join(infra.ETCD35_BIN_DIR, 'etcdutl'),
  };
  const names = Array.from({ length: size }, (_, i) => `m${i + 1}`);
  const peer = (i: number) => `http://127.0.0.1:${basePort + 10 + i}`;
  const initialCluster = names.map((n, i) => `${n}=${peer(i)}`).join(',');
  const members: TestMember[] = names.map((n, i) => {
    const clientUrl = `http://127.0.0.1:${basePort + i}`;
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
        ...(options.extraFlags?.(i) ?? ['--logger=zap', '--log-outputs=stderr']),
      ],
    };
  });
  const raw: Record<string, unknown> = {
    cluster: name,
    binaries: { current: bin.etcd34, target: bin.etcd35, etcdctl: bin.etcdctl, etcdutl: bin.etcdutl },
    backupDir: join(dir, 'backups'),
    driver: { kind: 'local', runDir: join(dir, 'run') },
    members: members.map(({ name: n, clientUrl, peerUrl, dataDir, flags }) => ({
      name: n,
      clientUrl,
      peerUrl,
      dataDir,
      flags,
    })),
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
  const etcd = createEtcdHttp({ timeoutMs: 1000 });

  async function build(): Promise<EtcdTestCluster> {
    await writeFile(file, yaml.dump(raw));
    const outcome = validateClusterSpec(raw, dir);
    if (!outcome.ok) throw new Error(`test cluster file is invalid: ${outcome.problems.join('; ')}`);
    const spec = outcome.spec;
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
      async start() {
        await Promise.all(spec.members.map((m) => driver.start(m, bin.etcd34, '3.4')));
        await waitForHealthy(etcd, members);
      },
      async rewrite(change) {
        change(raw);
        return build();
      },
      async destroy() {
        await killAll(join(dir, 'run'), members);
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

/** SIGKILL for every member process recorded in the run folder, checked against its flags first. */
async function killAll(runDir: string, members: readonly TestMember[]): Promise<void> {
  const files = await readdir(runDir).catch(() => [] as string[]);
  for (const file of files.filter((f) => f.endsWith('.pid'))) {
    const member = members.find((m) => `${m.name}.pid` === file);
    const pid = Number((await readFile(join(runDir, file), 'utf8')).trim());
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (member && cmdline.includes(member.dataDir)) {
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 100 && (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')) !== ''; i++)
        await sleep(20);
    }
  }
}
