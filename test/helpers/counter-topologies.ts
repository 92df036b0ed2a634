// Real counter-store topologies a test starts and stops itself, on free loopback ports: plain
// redis-servers, a sentinel set (master, replica, three sentinels), a three-master cluster, a TLS
// server with client-certificate verification (certificates made with openssl), memcached nodes
// and a dnsmasq serving SRV records. Every server is a child process killed by `stop()` (and on exit).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './experiment-server.ts';
import { waitFor } from './wait-for.ts';

const run = promisify(execFile);

export interface Child {
  readonly port: number;
  stop(): Promise<void>;
}

/** Whether something accepts TCP connections on the port. */
export const listening = (port: number): Promise<boolean> =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

/** Spawns a server and waits until `ready` says yes; kills it on stop and when the test process exits. */
async function spawnServer(
  what: string,
  command: string,
  args: readonly string[],
  port: number,
  ready: () => Promise<boolean> = () => listening(port),
): Promise<Child> {
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const collect = (chunk: Buffer): void => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const reap = (): void => void child.kill('SIGKILL');
  process.once('exit', reap);
  await waitFor(`${what} on port ${port}`, async () => {
    if (gone) throw new Error(`${what} exited: ${stderr}`);
    return ready();
  });
  return {
    port,
    async stop() {
      if (!gone) child.kill('SIGKILL');
      await exited;
      process.off('exit', reap);
    },
  };
}

/** redis-cli against 127.0.0.1:port; the reply text, trimmed. */
export async function redisCli(port: number, args: readonly string[], extra: readonly string[] = []) {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...extra, ...args]);
  return stdout.trim();
}

export interface RedisServer extends Child {
  cli(...args: string[]): Promise<string>;
}

/** A redis-server without persistence; `config` lines are extra `--name value` arguments. */
export async function startRedis(config: readonly string[] = [], port?: number): Promise<RedisServer> {
  const at = port ?? (await freePort());
  // A replica writes the master's snapshot to its working folder even with `--save ''`: keep it out of the checkout.
  const dir = await mkdtemp(join(tmpdir(), 'rl-redis-'));
  const child = await spawnServer(
    'redis-server',
    'redis-server',
    [
      '--port',
      String(at),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      ...config,
    ],
    at,
  );
  const stop = async (): Promise<void> => {
    await child.stop();
    await rm(dir, { recursive: true, force: true });
  };
  return { ...child, stop, cli: (...args) => redisCli(at, args) };
}

export interface SentinelSet {
  readonly masterName: string;
  readonly master: RedisServer;
  readonly replica: RedisServer;
  readonly sentinelPorts: readonly number[];
  readonly sentinelPassword: string;
  /** The port of the master the sentinels name now. */
  currentMasterPort(): Promise<number>;
  /** SENTINEL FAILOVER, then waits until the sentinels name the other server and the old one serves it as a replica. */
  failover(): Promise<number>;
  stop(): Promise<void>;
}

/** One master, one replica, three sentinels (quorum 2) with `requirepass` (REDIS_SENTINEL_AUTH). */
export async function startSentinelSet(masterName: string): Promise<SentinelSet> {
  const dir = await mkdtemp(join(tmpdir(), 'rl-sentinel-'));
  const master = await startRedis();
  const replica = await startRedis(['--replicaof', '127.0.0.1', String(master.port)]);
  await waitFor('the replica to sync', async () =>
    (await replica.cli('INFO', 'replication')).includes('master_link_status:up'),
  );
  const sentinelPassword = `sentinel-${process.pid}`;
  const sentinels: Child[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const file = join(dir, `sentinel-${i}.conf`);
    await writeFile(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `requirepass ${sentinelPassword}`,
        `sentinel monitor ${masterName} 127.0.0.1 ${master.port} 2`,
        `sentinel down-after-milliseconds ${masterName} 1000`,
        `sentinel failover-timeout ${masterName} 5000`,
        `sentinel parallel-syncs ${masterName} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push(await spawnServer('redis-sentinel', 'redis-server', [file, '--sentinel'], port));
  }
  const sentinelPorts = sentinels.map((s) => s.port);
  const ask = (port: number, ...args: string[]) =>
    redisCli(port, args, ['-a', sentinelPassword, '--no-auth-warning']);
  const currentMasterPort = async (): Promise<number> =>
    Number((await ask(sentinelPorts[0]!, 'SENTINEL', 'get-master-addr-by-name', masterName)).split('\n')[1]);
  // Every sentinel must know the replica and the others before a failover can be agreed.
  await waitFor(
    'the sentinels to know each other and the replica',
    async () => {
      for (const port of sentinelPorts) {
        const info = await ask(port, 'SENTINEL', 'master', masterName);
        const field = (name: string) => {
          const lines = info.split('\n');
          return Number(lines[lines.indexOf(name) + 1]);
        };
        if (field('num-slaves') < 1 || field('num-other-sentinels') < 2) return false;
      }
      return true;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  return {
    masterName,
    master,
    replica,
    sentinelPorts,
    sentinelPassword,
    currentMasterPort,
    async failover() {
      const before = await currentMasterPort();
      await ask(sentinelPorts[0]!, 'SENTINEL', 'FAILOVER', masterName);
      return waitFor(
        'the sentinels to name a new master',
        async () => {
          const now = await currentMasterPort();
          if (now === before) return false;
          if (!(await redisCli(now, ['ROLE'])).startsWith('master')) return false;
          // The old master is demoted (and its clients killed, in the same MULTI) after the promotion:
          // until then a client may still decide on it and lose its connection on the next command.
          return (await redisCli(before, ['ROLE'])).startsWith('slave') ? now : false;
        },
        { timeoutMs: 20_000, intervalMs: 20 },
      );
    },
    async stop() {
      await Promise.all([...sentinels, master, replica].map((c) => c.stop()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisCluster {
  readonly nodes: readonly RedisServer[];
  /** `host:port,...` for REDIS_URL. */
  readonly url: string;
  /** The node serving the key's slot now. */
  ownerOf(key: string): Promise<RedisServer>;
  /** Moves the key's slot (and its keys) to another master, as `redis-cli --cluster reshard` does. */
  moveSlotOf(key: string): Promise<{ from: RedisServer; to: RedisServer }>;
  stop(): Promise<void>;
}

/** Three masters, no replicas, made with `redis-cli --cluster create`. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'rl-cluster-'));
  const nodes: RedisServer[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    await mkdir(join(dir, String(port)));
    nodes.push(
      await startRedis(
        [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, String(port), 'nodes.conf'),
          '--dir',
          join(dir, String(port)),
          '--cluster-node-timeout',
          '2000',
        ],
        port,
      ),
    );
  }
  await run('redis-cli', [
    '--cluster',
    'create',
    ...nodes.map((n) => `127.0.0.1:${n.port}`),
    '--cluster-replicas',
    '0',
    '--cluster-yes',
  ]);
  await waitFor(
    'the cluster to be ok on every node',
    async () => {
      for (const node of nodes)
        if (!(await node.cli('CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
      return true;
    },
    { intervalMs: 100 },
  );
  const ownerOf = async (key: string): Promise<RedisServer> => {
    const slot = Number(await nodes[0]!.cli('CLUSTER', 'KEYSLOT', key));
    for (const node of nodes) {
      const line = (await node.cli('CLUSTER', 'NODES')).split('\n').find((l) => l.includes('myself'))!;
      for (const range of line.split(' ').slice(8)) {
        const [lo, hi] = range.split('-').map(Number);
        if (slot >= lo! && slot <= (hi ?? lo)!) return node;
      }
    }
    throw new Error(`no node serves slot ${slot}`);
  };
  const nodeId = async (node: RedisServer): Promise<string> => node.cli('CLUSTER', 'MYID');
  return {
    nodes,
    url: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    ownerOf,
    async moveSlotOf(key) {
      const slot = String(await nodes[0]!.cli('CLUSTER', 'KEYSLOT', key));
      const from = await ownerOf(key);
      const to = nodes.find((n) => n !== from)!;
      const [fromId, toId] = [await nodeId(from), await nodeId(to)];
      await to.cli('CLUSTER', 'SETSLOT', slot, 'IMPORTING', fromId);
      await from.cli('CLUSTER', 'SETSLOT', slot, 'MIGRATING', toId);
      for (;;) {
        const keys = (await from.cli('CLUSTER', 'GETKEYSINSLOT', slot, '100')).split('\n').filter(Boolean);
        if (keys.length === 0) break;
        await from.cli('MIGRATE', '127.0.0.1', String(to.port), '', '0', '5000', 'KEYS', ...keys);
      }
      for (const node of nodes) await node.cli('CLUSTER', 'SETSLOT', slot, 'NODE', toId);
      return { from, to };
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Certificates {
  readonly dir: string;
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A CA that signed nothing here: a client trusting it must refuse the server. */
  readonly otherCa: string;
  cleanup(): Promise<void>;
}

/** A CA, a server certificate for 127.0.0.1/localhost and a client certificate, made with openssl. */
export async function makeCertificates(): Promise<Certificates> {
  const dir = await mkdtemp(join(tmpdir(), 'rl-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  for (const ca of ['ca', 'other-ca'])
    await openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${ca} of the ratelimit tests`,
      '-keyout',
      at(`${ca}.key`),
      '-out',
      at(`${ca}.crt`),
    );
  for (const [name, ext] of [
    ['server', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    ['client', 'extendedKeyUsage=clientAuth'],
  ] as const) {
    await writeFile(at(`${name}.ext`), `${ext}\n`);
    await openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      at(`${name}.key`),
      '-out',
      at(`${name}.csr`),
    );
    await openssl(
      'x509',
      '-req',
      '-in',
      at(`${name}.csr`),
      '-CA',
      at('ca.crt'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      at(`${name}.ext`),
      '-out',
      at(`${name}.crt`),
    );
  }
  return {
    dir,
    ca: at('ca.crt'),
    serverCert: at('server.crt'),
    serverKey: at('server.key'),
    clientCert: at('client.crt'),
    clientKey: at('client.key'),
    otherCa: at('other-ca.crt'),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A redis-server on a TLS port only, verifying client certificates, with `requirepass` and an ACL
 * user (`user` with `userPassword`).
 */
export async function startTlsRedis(
  certs: Certificates,
  auth: { password: string; user: string; userPassword: string },
): Promise<Child> {
  const port = await freePort();
  // An ACL user is a config-file line (on the command line its rules would be read as its name).
  const conf = join(certs.dir, `redis-${port}.conf`);
  await writeFile(conf, `user ${auth.user} on >${auth.userPassword} ~* &* +@all\n`);
  return spawnServer(
    'redis-server (TLS)',
    'redis-server',
    [
      conf,
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--tls-cert-file',
      certs.serverCert,
      '--tls-key-file',
      certs.serverKey,
      '--tls-ca-cert-file',
      certs.ca,
      '--tls-auth-clients',
      'yes',
      '--requirepass',
      auth.password,
    ],
    port,
  );
}

/** memcached on a free port (TCP only, 64 MB). */
export async function startMemcached(port?: number): Promise<Child> {
  const at = port ?? (await freePort());
  return spawnServer(
    'memcached',
    'memcached',
    ['-l', '127.0.0.1', '-p', String(at), '-U', '0', '-m', '64', '-u', 'root'],
    at,
  );
}

/** The raw value of a key on one memcached node, undefined when absent. */
export async function memcachedGet(port: number, key: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write(`get ${key}\r\n`));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (!text.endsWith('END\r\n')) return;
      socket.destroy();
      const match = /^VALUE \S+ \d+ \d+\r\n(.*)\r\n/.exec(text);
      resolve(match === null ? undefined : match[1]);
    });
    socket.on('error', reject);
  });
}

export interface DnsServer extends Child {
  /** Restarts on the same port serving these SRV targets instead. */
  serve(targets: readonly number[]): Promise<void>;
}

/**
 * dnsmasq on a loopback UDP/TCP port, answering only `srvName` with SRV records whose targets are
 * `127.0.0.1:<port>` (an address as target name, so no A record is needed).
 */
export async function startDnsmasq(srvName: string, targets: readonly number[]): Promise<DnsServer> {
  const port = await freePort();
  let child: Child | undefined;
  const start = async (list: readonly number[]): Promise<void> => {
    child = await spawnServer(
      'dnsmasq',
      'dnsmasq',
      [
        '--keep-in-foreground',
        '--conf-file=/dev/null',
        '--no-resolv',
        '--no-hosts',
        '--no-dhcp-interface=',
        '--bind-interfaces',
        '--listen-address=127.0.0.1',
        `--port=${port}`,
        '--pid-file=',
        '--user=root',
        '--log-facility=-',
        ...list.map((target, i) => `--srv-host=${srvName},127.0.0.1,${target},0,${100 + i}`),
      ],
      port,
    );
  };
  await start(targets);
  return {
    port,
    async serve(list) {
      await child?.stop();
      await start(list);
    },
    stop: async () => child?.stop(),
  };
}
