// The etcd cluster a kvupgrade user has: three 3.4 members on this host, made from
// services/kvupgrade/example/cluster.yaml as the README says (a copy with its addresses, data
// folders and binaries put in, nothing else), started by hand with the flags the copy lists.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import yaml from 'js-yaml';

/** The example's members: client and peer ports on 127.0.0.1. */
const EXAMPLE_PORTS = [
  [2379, 2380],
  [22379, 22380],
  [32379, 32380],
] as const;

export interface EtcdLab {
  /** The folder holding cluster.yaml, where the kvupgrade commands are run. */
  readonly dir: string;
  /** The cluster's name in the file (the event key on kv.upgrade-progress). */
  readonly cluster: string;
  readonly clientUrls: readonly string[];
  /** The server version each member answers on /version ('' when it does not answer). */
  versions(): Promise<string[]>;
  /** Kills every etcd whose data folder is in `dir` (whoever started it) and removes `dir`. */
  destroy(): Promise<void>;
}

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** The example's ports when all are free, else client ports base+i and peer ports base+10+i. */
async function memberPorts(): Promise<Array<readonly [number, number]>> {
  const free = async (ports: ReadonlyArray<readonly [number, number]>) =>
    (await Promise.all(ports.flat().map(portFree))).every(Boolean);
  if (await free(EXAMPLE_PORTS)) return EXAMPLE_PORTS.map((p) => p);
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 33_000 + 100 * Math.floor(Math.random() * 50);
    const ports = [0, 1, 2].map((i) => [base + i, base + 10 + i] as const);
    if (await free(ports)) return ports;
  }
  throw new Error('no free ports for three etcd members');
}

function pidsUsing(dir: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid)
    .filter((d) => {
      try {
        const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8');
        return cmdline.includes(`${dir}/`) && cmdline.includes('--data-dir');
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function versionOf(clientUrl: string): Promise<string> {
  try {
    const reply = await fetch(`${clientUrl}/version`, { signal: AbortSignal.timeout(1_000) });
    return ((await reply.json()) as { etcdserver?: string }).etcdserver ?? '';
  } catch {
    return '';
  }
}

export async function createEtcdLab(root: string, infra: Readonly<Record<string, string>>): Promise<EtcdLab> {
  const dir = join(root, '.scratch', `readme-walk-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const ports = await memberPorts();
  const etcd34 = join(infra.ETCD34_BIN_DIR!, 'etcd');
  const bin35 = infra.ETCD35_BIN_DIR!;
  let text = readFileSync(join(root, 'services', 'kvupgrade', 'example', 'cluster.yaml'), 'utf8');
  EXAMPLE_PORTS.forEach(([client, peer], i) => {
    text = text
      .replaceAll(`http://127.0.0.1:${client}`, `http://127.0.0.1:${ports[i]![0]}`)
      .replaceAll(`http://127.0.0.1:${peer}`, `http://127.0.0.1:${ports[i]![1]}`)
      .replaceAll(`/var/lib/etcd/m${i + 1}`, join(dir, `m${i + 1}.etcd`));
  });
  text = text
    .replaceAll('/opt/etcd-v3.5.16/etcdctl', join(bin35, 'etcdctl'))
    .replaceAll('/opt/etcd-v3.5.16/etcdutl', join(bin35, 'etcdutl'))
    .replaceAll('/opt/etcd-v3.5.16/etcd', join(bin35, 'etcd'))
    .replaceAll('/opt/etcd-v3.4.23/etcd', etcd34)
    .replaceAll('/var/backups/etcd', join(dir, 'backups'))
    .replaceAll('/var/run/kvupgrade', join(dir, 'run'));
  writeFileSync(join(dir, 'cluster.yaml'), text);
  const spec = yaml.load(text) as {
    cluster: string;
    members: Array<{ name: string; clientUrl: string; flags: string[] }>;
  };

  const lab: EtcdLab = {
    dir,
    cluster: spec.cluster,
    clientUrls: spec.members.map((m) => m.clientUrl),
    versions: () => Promise.all(spec.members.map((m) => versionOf(m.clientUrl))),
    async destroy() {
      const pids = pidsUsing(dir);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 100 && pidsUsing(dir).length > 0; i++) await sleep(50);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // Started by hand, as an operator's members are: kvupgrade finds them by their flags.
  for (const member of spec.members) {
    const log = openSync(join(dir, `${member.name}.log`), 'a');
    const child: ChildProcess = spawn(etcd34, member.flags, { detached: true, stdio: ['ignore', log, log] });
    child.unref();
  }
  for (const deadline = performance.now() + 30_000; performance.now() < deadline; ) {
    const healthy = await Promise.all(
      spec.members.map((m) =>
        fetch(`${m.clientUrl}/health`, { signal: AbortSignal.timeout(1_000) }).then(
          async (r) => r.status === 200 && ((await r.json()) as { health?: string }).health === 'true',
          () => false,
        ),
      ),
    );
    if (healthy.every(Boolean)) return lab;
    await sleep(100);
  }
  await lab.destroy();
  throw new Error(`the three etcd 3.4 members did not become healthy within 30 s (logs in ${dir})`);
}
