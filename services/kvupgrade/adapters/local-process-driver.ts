import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, open, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../../shared/clock.ts';
import { AppError, unavailable } from '../../../shared/errors.ts';
import type { MemberSpec } from '../domain/cluster-spec.ts';
import { flagValue } from '../domain/flags.ts';
import type { MemberDriver } from '../ports.ts';
import { lastLines, runCommand } from './process.ts';

const POLL_MS = 20;

/**
 * Members as local processes: `<runDir>/<name>.pid` and `<runDir>/<name>.log` (stdout and stderr,
 * appended, a marker line per start). Processes are detached, so they outlive the orchestrator
 * (a SIGKILLed run leaves the cluster running for `resume`). A PID is trusted only while
 * `/proc/<pid>/cmdline` still holds the member's flags, so a recycled PID is never signalled.
 */
export function createLocalProcessDriver(options: {
  readonly runDir: string;
  readonly etcdutl: string;
  readonly clock: Clock;
}): MemberDriver {
  const { runDir, etcdutl, clock } = options;
  const exits = new Map<string, string>();
  const cursors = new Map<string, { offset: number; partial: string }>();
  const pidFile = (m: MemberSpec) => join(runDir, `${m.name}.pid`);
  const logFile = (m: MemberSpec) => join(runDir, `${m.name}.log`);

  async function livePid(member: MemberSpec): Promise<number | undefined> {
    const pid = Number((await readFile(pidFile(member), 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    try {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      if (/^State:\s+Z/m.test(status)) return undefined; // exited, not yet reaped
      const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
      return member.flags.every((f) => args.includes(f)) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    async start(member, binary, version) {
      await mkdir(runDir, { recursive: true });
      if (await livePid(member))
        throw new AppError('FAILED_PRECONDITION', `${member.name} is already running`);
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
        child.once('exit', (code, signal) =>
          exits.set(member.name, signal ? `killed by ${signal}` : `exit code ${code}`),
        );
        child.unref();
        exits.delete(member.name);
        await writeFile(pidFile(member), `${child.pid}\n`);
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
        if ((await livePid(member)) === undefined) return { escalated: false };
        await sleep(POLL_MS);
      }
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 250 && (await livePid(member)) !== undefined; i++) await sleep(POLL_MS);
      if ((await livePid(member)) !== undefined)
        throw unavailable(`${member.name} (pid ${pid}) survived SIGKILL`);
      return { escalated: true };
    },

    async status(member) {
      const running = (await livePid(member)) !== undefined;
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
