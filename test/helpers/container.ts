// The project's image run by podman for the container tests and the memory bench: built once per
// set of inputs (scripts/image.sh ensure, tagged by their hash), each container on the host network
// with a read-only root file system, as the image's non-root user, stopped with SIGTERM.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const IMAGE_SCRIPT = join(ROOT, 'scripts', 'image.sh');
const run = promisify(execFile);
/** podman settings for this machine (runc, no default ulimits): the script's own. */
export const PODMAN_ENV = {
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? join(ROOT, 'scripts', 'image', 'containers.conf'),
};

export interface TestImage {
  /** The image; `${tag}-earlystopping` is its EarlyStopping tag. */
  readonly tag: string;
  /** Seconds the build took (0 when the tag already existed). */
  readonly buildSeconds: number;
}

/**
 * The image of this tree, built unless one with the inputs' hash exists: `scripts/image.sh` installs
 * podman and runc first when missing.
 */
export async function ensureTestImage(): Promise<TestImage> {
  const key = (await run('bash', [IMAGE_SCRIPT, 'key'])).stdout.trim();
  const tag = `localhost/backbone-test:${key}`;
  const started = performance.now();
  // Asynchronous, so that what a test prepares meanwhile (a Python venv) goes on.
  const ensured = await run('bash', [IMAGE_SCRIPT, 'ensure', tag], {
    env: PODMAN_ENV,
    timeout: 900_000,
  }).catch((error: { stderr?: string; message: string }) => {
    throw new Error(`scripts/image.sh ensure ${tag} failed:\n${error.stderr ?? error.message}`);
  });
  const built = !/ exists$/m.test(ensured.stderr);
  return { tag, buildSeconds: built ? (performance.now() - started) / 1_000 : 0 };
}

export const podman = async (...args: string[]): Promise<string> =>
  (await run('podman', args, { env: PODMAN_ENV, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();

export interface ContainerOptions {
  readonly env?: Record<string, string>;
  /** Host path → container path, mounted read-only. */
  readonly readOnlyMounts?: Record<string, string>;
  readonly name: string;
  /** Share the host's process namespace (kvupgrade's local driver finds members in /proc). */
  readonly pidHost?: boolean;
}

export interface Container {
  readonly name: string;
  /** The process's pid on the host (PID 1 inside). */
  hostPid(): Promise<number>;
  logs(): Promise<string>;
  /** SIGTERM (podman stop, SIGKILL only after 60 s), then the exit code. */
  stop(): Promise<number>;
  running(): Promise<boolean>;
  /** Waits for the program to end by itself; its exit code. */
  wait(): Promise<number>;
  remove(): Promise<void>;
}

/** Starts `image` with `args` in the background, as the tests and Kubernetes run it. */
export async function startContainer(
  image: string,
  args: readonly string[],
  options: ContainerOptions,
): Promise<Container> {
  const env = Object.entries(options.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const mounts = Object.entries(options.readOnlyMounts ?? {}).flatMap(([from, to]) => [
    '-v',
    `${from}:${to}:ro`,
  ]);
  await podman('rm', '-f', '-v', '--ignore', options.name);
  // --read-only-tmpfs=false: no writable /tmp or /run either, as in a pod without volumes for them.
  await podman(
    'run',
    '-d',
    '--name',
    options.name,
    '--network',
    'host',
    '--read-only',
    '--read-only-tmpfs=false',
    '--cap-drop',
    'all',
    '--security-opt',
    'no-new-privileges',
    ...(options.pidHost ? ['--pid', 'host'] : []),
    ...env,
    ...mounts,
    image,
    ...args,
  );
  const exitCode = async () =>
    Number(await podman('inspect', '--format', '{{.State.ExitCode}}', options.name));
  return {
    name: options.name,
    hostPid: async () => Number(await podman('inspect', '--format', '{{.State.Pid}}', options.name)),
    logs: async () => {
      const { stdout, stderr } = await run('podman', ['logs', options.name], {
        env: PODMAN_ENV,
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout + stderr;
    },
    stop: async () => {
      await podman('stop', '--time', '60', options.name);
      return exitCode();
    },
    running: async () => (await podman('inspect', '--format', '{{.State.Running}}', options.name)) === 'true',
    wait: async () => Number(await podman('wait', options.name)),
    // With its anonymous volumes (the image's /app/data).
    remove: async () => {
      await podman('rm', '-f', '-v', '--ignore', options.name);
    },
  };
}

/** User id, and the pid inside the container's namespace, of a host pid. */
export function processIdentity(hostPid: number): { uid: number; namespacePid: number } {
  const status = readFileSync(`/proc/${hostPid}/status`, 'utf8');
  const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
  const nspid = /^NSpid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/) ?? [];
  return { uid, namespacePid: Number(nspid[nspid.length - 1]) };
}

export interface CgroupMemory {
  /** memory.usage_in_bytes (v1) or memory.current (v2): what the runtime charges the container. */
  readonly usage: number;
  /** usage less inactive file pages: the working set kubelet reports and evicts on. */
  readonly workingSet: number;
  /** Anonymous memory (heaps, stacks, malloc). */
  readonly anon: number;
  /** The peak of usage since the container started (v1 max_usage_in_bytes; v2 memory.peak). */
  readonly peak: number;
}

/** The container's cgroup memory figures, in bytes, read from the host's cgroup file system. */
export function cgroupMemory(hostPid: number): CgroupMemory {
  const lines = readFileSync(`/proc/${hostPid}/cgroup`, 'utf8').split('\n');
  const v1 = lines.find((line) => /^\d+:memory:/.test(line))?.split(':')[2];
  const dir =
    v1 !== undefined ? join('/sys/fs/cgroup/memory', v1) : join('/sys/fs/cgroup', lines[0]!.split(':')[2]!);
  const read = (file: string) => readFileSync(join(dir, file), 'utf8').trim();
  const stat = new Map(
    read('memory.stat')
      .split('\n')
      .map((line) => line.split(' ') as [string, string])
      .map(([k, v]) => [k, Number(v)]),
  );
  if (v1 !== undefined) {
    const usage = Number(read('memory.usage_in_bytes'));
    return {
      usage,
      workingSet: usage - (stat.get('total_inactive_file') ?? 0),
      anon: stat.get('total_rss') ?? 0,
      peak: Number(read('memory.max_usage_in_bytes')),
    };
  }
  const usage = Number(read('memory.current'));
  return {
    usage,
    workingSet: usage - (stat.get('inactive_file') ?? 0),
    anon: stat.get('anon') ?? 0,
    peak: Number(read('memory.peak')),
  };
}
