import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, open, readdir, readFile, readlink, rename, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../../shared/clock.ts';
import { AppError, unavailable } from '../../../shared/errors.ts';
import { type Flag, flagDifferences, flagValue, parseFlags } from '../domain/flags.ts';
import type { MemberSpec } from '../domain/member-spec.ts';
import type { MemberDriver } from '../ports.ts';
import { lastLines, runCommand } from './process.ts';

const POLL_MS = 20;
/** How long a status waits for the exit code of a process of its own that /proc already shows gone. */
const EXIT_CODE_WAIT_MS = 1000;

/** A process's arguments as etcd would read them: after the program (and a script's interpreter). */
export function etcdArgs(argv: readonly string[]): Flag[] | undefined {
  for (const skip of [1, 2]) {
    const parsed = parseFlags(argv.slice(skip));
    if (parsed.ok && parsed.flags.length > 0) return parsed.flags;
  }
  return undefined;
}

interface Candidate {
  readonly pid: number;
  readonly flags: readonly Flag[];
}

/**
 * Members as local processes: `<runDir>/<name>.pid` and `<runDir>/<name>.log` (stdout and stderr,
 * appended, a marker line per start). Processes are detached, so they outlive the orchestrator
 * (a SIGKILLed run leaves the cluster running for `resume`).
 *
 * A process is the member when its `--name` and `--data-dir`, read from `/proc/<pid>/cmdline` as etcd
 * parses them (`--name=m1`, `--name m1`, `-name m1` alike), are the member's; the PID file is only
 * where the search starts, so a recycled PID is never signalled and a member started by hand is found.
 * A PID file is never overwritten while the process it names is the member.
 */
export function createLocalProcessDriver(options: {
  readonly runDir: string;
  readonly etcdutl: string;
  readonly clock: Clock;
}): MemberDriver {
  const { runDir, etcdutl, clock } = options;
  const exits = new Map<string, string>();
  // Settled once node has reaped a member's process: /proc may show it gone (a zombie) a moment before.
  const reaped = new Map<string, Promise<void>>();
  const cursors = new Map<string, { offset: number; partial: string }>();
  const pidFile = (m: MemberSpec) => join(runDir, `${m.name}.pid`);
  const logFile = (m: MemberSpec) => join(runDir, `${m.name}.log`);
  const lookedFor = (m: MemberSpec) =>
    `a running process with --name=${m.name} and --data-dir=${m.dataDir} (in /proc/*/cmdline; PID file ${pidFile(m)})`;

  /** The process `pid` when it is alive (not a zombie) and is the member. */
  async function asMember(member: MemberSpec, pid: number): Promise<Candidate | undefined> {
    try {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      if (/^State:\s+Z/m.test(status)) return undefined; // exited, not yet reaped
      const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
      if (argv.at(-1) === '') argv.pop();
      const flags = etcdArgs(argv);
      if (!flags || flagValue(flags, 'name') !== member.name) return undefined;
      const dir = flagValue(flags, 'data-dir');
      if (dir === undefined) return undefined;
      const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '/');
      return resolve(cwd, dir) === member.dataDir ? { pid, flags } : undefined;
    } catch {
      return undefined;
    }
  }

  async function pidFromFile(member: MemberSpec): Promise<number | undefined> {
    const pid = Number((await readFile(pidFile(member), 'utf8').catch(() => '')).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  }

  /** Every live process that is the member: the PID file's first, then a scan of /proc. */
  async function candidates(member: MemberSpec): Promise<Candidate[]> {
    const pids = (await readdir('/proc')).filter((d) => /^\d+$/.test(d)).map(Number);
    const found = await Promise.all(pids.filter((p) => p !== process.pid).map((p) => asMember(member, p)));
    return found.filter((c): c is Candidate => c !== undefined);
  }

  /** The one process of the member, undefined when none; several is an error (which one to stop?). */
  async function livePid(member: MemberSpec): Promise<number | undefined> {
    const recorded = await pidFromFile(member);
    if (recorded !== undefined && (await asMember(member, recorded))) return recorded;
    const found = await candidates(member);
    if (found.length > 1)
      throw new AppError(
        'FAILED_PRECONDITION',
        `${found.length} processes are ${member.name} (pids ${found.map((c) => c.pid).join(', ')}); expected one: ${lookedFor(member)}`,
      );
    return found[0]?.pid;
  }

  async function gone(member: MemberSpec, pid: number): Promise<boolean> {
    return (await asMember(member, pid)) === undefined;
  }

  return {
    async processes(member) {
      const found = await candidates(member);
      return {
        lookedFor: lookedFor(member),
        found: found.map((c) => ({
          pid: c.pid,
          flagDifferences: flagDifferences(member.parsedFlags, c.flags),
        })),
      };
    },

    async fileExists(_member, file) {
      return stat(file).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return false;
          throw unavailable(`cannot look for ${file}: ${error.code ?? error.message}`, error);
        },
      );
    },

    async dataDirId(member) {
      // etcd makes <dataDir>/member once, when the member first starts; only a new folder has another.
      return stat(join(member.dataDir, 'member')).then(
        (s) => `${s.ino}@${Math.round(s.birthtimeMs)}`,
        () => undefined,
      );
    },

    async start(member, binary, version) {
      await mkdir(runDir, { recursive: true });
      const running = await livePid(member);
      if (running !== undefined)
        throw new AppError('FAILED_PRECONDITION', `${member.name} is already running (pid ${running})`);
      const log = logFile(member);
      await writeFile(
        log,
        `### ${new Date(clock.now()).toISOString()} start ${member.name} with ${binary} (${version})\n`,
        { flag: 'a' },
      );
      const fd = openSync(log, 'a');
      try {
        const child = spawn(binary, [...member.flags], { detached: true, stdio: ['ignore', fd, fd] });
        await new Promise<void>((resolve, reject) => {
          child.once('spawn', resolve);
          child.once('error', (error) =>
            reject(unavailable(`cannot start ${member.name} with ${binary}: ${error.message}`, error)),
          );
        });
        reaped.set(
          member.name,
          new Promise((resolve) =>
            child.once('exit', (code, signal) => {
              exits.set(member.name, signal ? `killed by ${signal}` : `exit code ${code}`);
              resolve();
            }),
          ),
        );
        child.unref();
        exits.delete(member.name);
        // Written through a new file and a rename: a reader never sees a half-written PID.
        const tmp = `${pidFile(member)}.${child.pid}.tmp`;
        await writeFile(tmp, `${child.pid}\n`);
        await rename(tmp, pidFile(member));
      } finally {
        closeSync(fd);
      }
    },

    async stop(member, deadlineMs) {
      const pid = await livePid(member);
      if (pid === undefined) return { escalated: false };
      process.kill(pid, 'SIGINT');
      const deadline = clock.now() + deadlineMs;
      while (clock.now() < deadline) {
        if (await gone(member, pid)) return { escalated: false };
        await sleep(POLL_MS);
      }
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 250 && !(await gone(member, pid)); i++) await sleep(POLL_MS);
      if (!(await gone(member, pid))) throw unavailable(`${member.name} (pid ${pid}) survived SIGKILL`);
      return { escalated: true };
    },

    async status(member) {
      const running = (await livePid(member).catch(() => 1)) !== undefined;
      const ours = reaped.get(member.name);
      if (!running && !exits.has(member.name) && ours) await Promise.race([ours, sleep(EXIT_CODE_WAIT_MS)]);
      const exit = exits.get(member.name);
      return running ? { running } : exit ? { running, exit } : { running };
    },

    async drainLogs(member) {
      const size = await stat(logFile(member)).then(
        (s) => s.size,
        () => 0,
      );
      const cursor = cursors.get(member.name);
      if (!cursor || size < cursor.offset) {
        cursors.set(member.name, { offset: size, partial: '' });
        return [];
      }
      if (size === cursor.offset) return [];
      const handle = await open(logFile(member), 'r');
      try {
        const buffer = Buffer.alloc(size - cursor.offset);
        await handle.read(buffer, 0, buffer.length, cursor.offset);
        const lines = (cursor.partial + buffer.toString('utf8')).split('\n');
        cursors.set(member.name, { offset: size, partial: lines.pop() ?? '' });
        return lines;
      } finally {
        await handle.close();
      }
    },

    async tailLogs(member, lines) {
      const text = await readFile(logFile(member), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .slice(-lines);
    },

    async checkV2store(member, v2etcdutl) {
      const wal = flagValue(member.parsedFlags, 'wal-dir');
      const args = ['check', 'v2store', `--data-dir=${member.dataDir}`, ...(wal ? [`--wal-dir=${wal}`] : [])];
      const result = await runCommand(v2etcdutl, args, { timeoutMs: 60_000 });
      const said = lastLines(`${result.stdout}\n${result.stderr}`.trim(), 1);
      if (result.code === 0) return { clean: true, detail: said || 'no custom v2 content' };
      if (/custom/.test(said)) return { clean: false, detail: said.replace(/^Error:\s*/, '') };
      throw unavailable(
        `etcdutl check v2store for ${member.name} failed (exit ${result.code ?? result.signal}): ${said}`,
      );
    },
    async restoreData(member, restore) {
      if (await livePid(member))
        throw new AppError(
          'FAILED_PRECONDITION',
          `${member.name} must be stopped before its data folder is replaced`,
        );
      const stamp = new Date(clock.now()).toISOString().replace(/[-:.]/g, '');
      const restored = `${member.dataDir}.restored-${stamp}`;
      const movedAside = `${member.dataDir}.before-restore-${stamp}`;
      const args = [
        'snapshot',
        'restore',
        restore.snapshot,
        `--name=${member.name}`,
        `--data-dir=${restored}`,
        `--initial-cluster=${restore.initialCluster}`,
        `--initial-cluster-token=${restore.initialClusterToken}`,
        `--initial-advertise-peer-urls=${flagValue(member.parsedFlags, 'initial-advertise-peer-urls') ?? member.peerUrl}`,
      ];
      const wal = flagValue(member.parsedFlags, 'wal-dir');
      if (wal)
        throw new AppError(
          'FAILED_PRECONDITION',
          `${member.name} uses --wal-dir; restore it by hand (etcdutl snapshot restore --wal-dir)`,
        );
      const result = await runCommand(etcdutl, args, { timeoutMs: 120_000 });
      if (result.code !== 0)
        throw unavailable(
          `etcdutl snapshot restore for ${member.name} failed: ${lastLines(result.stderr || result.stdout)}`,
        );
      await rename(member.dataDir, movedAside).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      await rename(restored, member.dataDir);
      return { movedAside };
    },
  };
}
