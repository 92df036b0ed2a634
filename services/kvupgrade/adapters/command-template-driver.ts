import type { Clock } from '../../../shared/clock.ts';
import { AppError, unavailable } from '../../../shared/errors.ts';
import type { DriverSpec } from '../domain/driver-spec.ts';
import type { MemberSpec } from '../domain/member-spec.ts';
import { type Placeholder, renderTemplate } from '../domain/templates.ts';
import type { MemberDriver } from '../ports.ts';
import { lastLines, runCommand } from './process.ts';

type CommandDriverSpec = Extract<DriverSpec, { kind: 'command' }>;

const COMMAND_TIMEOUT_MS = 120_000;

/** The placeholders every command of a member can use. */
export function memberValues(member: MemberSpec): Partial<Record<Placeholder, string | readonly string[]>> {
  return {
    name: member.name,
    host: new URL(member.clientUrl).hostname,
    dataDir: member.dataDir,
    clientUrl: member.clientUrl,
    peerUrl: member.peerUrl,
  };
}

/**
 * Members managed by shell commands (systemd units, ssh): each command is a template whose
 * placeholders are filled with shell-quoted values, then run with `/bin/sh -c`.
 *   status: exit 0 while the member runs, non-zero once stopped
 *   stop:   asks for a graceful stop (systemctl stop sends SIGTERM; etcd stops the same way as on SIGINT)
 *   kill:   optional escalation after the deadline
 *   logs:   optional, prints the member's log lines since {since} (epoch seconds)
 *   restore: optional, restores {snapshot} into the member's data folder (for rollback after 3.5)
 *   check:  optional, exits 0 when {file} exists on the member's host, 1 when it does not (plan's
 *           v3 database check); any other exit is no answer
 */
export function createCommandTemplateDriver(options: {
  readonly spec: CommandDriverSpec;
  readonly clock: Clock;
}): MemberDriver {
  const { spec, clock } = options;
  const lastDrain = new Map<string, number>();

  async function sh(
    template: string,
    values: Partial<Record<Placeholder, string | readonly string[]>>,
    timeoutMs = COMMAND_TIMEOUT_MS,
  ) {
    return runCommand('/bin/sh', ['-c', renderTemplate(template, values)], { timeoutMs });
  }
  async function running(member: MemberSpec): Promise<boolean> {
    const result = await sh(spec.status, memberValues(member), 30_000);
    return result.code === 0;
  }

  return {
    async processes(member) {
      const command = renderTemplate(spec.status, memberValues(member));
      return {
        lookedFor: `driver.status exiting 0 (${command})`,
        found: (await running(member)) ? [{ flagDifferences: [] }] : [],
      };
    },
    async fileExists(member, file) {
      if (!spec.check) return undefined;
      const result = await sh(spec.check, { ...memberValues(member), file }, 30_000);
      // `test -f` exits 1 for a missing file; anything else (ssh's 255, a timeout) is no answer.
      if (result.code === 0 || result.code === 1) return result.code === 0;
      throw unavailable(
        `driver.check for ${member.name} did not answer (exit ${result.code ?? result.signal}): ${lastLines(result.stderr || result.stdout)}`,
      );
    },
    dataDirId: async () => undefined,
    async start(member, binary, version) {
      const result = await sh(spec.start, { ...memberValues(member), binary, flags: member.flags, version });
      if (result.code !== 0)
        throw unavailable(
          `start command for ${member.name} failed (exit ${result.code ?? result.signal}): ${lastLines(result.stderr || result.stdout)}`,
        );
    },
    async stop(member, deadlineMs) {
      if (!(await running(member))) return { escalated: false };
      const result = await sh(spec.stop, memberValues(member), deadlineMs);
      if (result.code === 0 && !(await running(member))) return { escalated: false };
      if (!spec.kill) {
        throw unavailable(
          `${member.name} did not stop within ${deadlineMs} ms (stop: ${result.timedOut ? 'timed out' : `exit ${result.code}`}) and driver.kill is not set`,
        );
      }
      const killed = await sh(spec.kill, memberValues(member));
      if (killed.code !== 0 || (await running(member)))
        throw unavailable(
          `${member.name} survived driver.kill: ${lastLines(killed.stderr || killed.stdout)}`,
        );
      return { escalated: true };
    },
    async status(member) {
      return { running: await running(member) };
    },
    async drainLogs(member) {
      if (!spec.logs) return [];
      const since = lastDrain.get(member.name);
      const now = clock.now();
      lastDrain.set(member.name, now);
      if (since === undefined) return [];
      const result = await sh(
        spec.logs,
        { ...memberValues(member), since: String(Math.floor(since / 1000)) },
        30_000,
      );
      return result.code === 0 ? result.stdout.split('\n') : [];
    },
    async tailLogs(member, lines) {
      if (!spec.logs) return [];
      const since = String(Math.floor(clock.now() / 1000) - 60);
      const result = await sh(spec.logs, { ...memberValues(member), since }, 30_000);
      return result.stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .slice(-lines);
    },
    async checkV2store() {
      return undefined; // the data folder is on the member's host: the guide's check is the operator's there
    },
    async restoreData(member, restore) {
      if (!spec.restore)
        throw new AppError(
          'FAILED_PRECONDITION',
          'driver.restore is not set: the command driver cannot restore a snapshot without it',
        );
      const result = await sh(spec.restore, {
        ...memberValues(member),
        snapshot: restore.snapshot,
        initialCluster: restore.initialCluster,
        initialClusterToken: restore.initialClusterToken,
      });
      if (result.code !== 0)
        throw unavailable(
          `restore command for ${member.name} failed: ${lastLines(result.stderr || result.stdout)}`,
        );
      return { movedAside: '(by driver.restore)' };
    },
  };
}
