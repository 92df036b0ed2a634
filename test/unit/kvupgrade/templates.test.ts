import { describe, expect, it } from 'vitest';
import {
  createCommandTemplateDriver,
  memberValues,
} from '../../../services/kvupgrade/adapters/command-template-driver.ts';
import { parseFlags, removedFlagsIn, shellQuote } from '../../../services/kvupgrade/domain/flags.ts';
import { parsePlaceholders, renderTemplate } from '../../../services/kvupgrade/domain/templates.ts';
import { systemClock } from '../../../shared/clock.ts';

const member = {
  name: 'etcd-a',
  clientUrl: 'https://10.0.0.1:2379',
  peerUrl: 'https://10.0.0.1:2380',
  dataDir: '/var/lib/etcd data',
  flags: ['--name=etcd-a', "--initial-cluster-token=it's"],
  parsedFlags: [],
};

describe('command templates', () => {
  it('fills member placeholders, each as one shell word', () => {
    expect(renderTemplate('ssh {host} sudo systemctl stop etcd@{name}', memberValues(member))).toBe(
      'ssh 10.0.0.1 sudo systemctl stop etcd@etcd-a',
    );
    expect(renderTemplate('rm -rf {dataDir}/member/wal', memberValues(member))).toBe(
      "rm -rf '/var/lib/etcd data'/member/wal",
    );
  });

  it('expands {flags} into separate quoted words and quotes a quote', () => {
    expect(renderTemplate('{binary} {flags}', { binary: '/opt/etcd 3.5/etcd', flags: member.flags })).toBe(
      `'/opt/etcd 3.5/etcd' --name=etcd-a '--initial-cluster-token=it'\\''s'`,
    );
  });

  it('refuses to run a template with a placeholder it has no value for', () => {
    expect(() => renderTemplate('journalctl --since=@{since}', memberValues(member))).toThrow(
      'template "journalctl --since=@{since}": no value for {since}',
    );
  });

  it('finds placeholders, and says what is wrong with a brace', () => {
    expect(parsePlaceholders('ssh {host} start {name}')).toEqual({ ok: true, names: ['host', 'name'] });
    expect(parsePlaceholders('echo {}')).toEqual({ ok: false, problem: 'bad placeholder {}' });
    expect(parsePlaceholders('echo {host')).toEqual({
      ok: false,
      problem: 'unbalanced brace in "echo {host"',
    });
  });

  it('quotes only what the shell would split or expand', () => {
    expect(shellQuote('--data-dir=/var/lib/etcd')).toBe('--data-dir=/var/lib/etcd');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote('$HOME')).toBe("'$HOME'");
    expect(shellQuote('')).toBe("''");
  });
});

describe('the command driver looking for a file (driver.check)', () => {
  const driver = (check: string | undefined) =>
    createCommandTemplateDriver({
      spec: {
        kind: 'command',
        start: 'true',
        stop: 'true',
        status: 'true',
        kill: undefined,
        logs: undefined,
        restore: undefined,
        check,
      },
      clock: systemClock,
    });

  it('exit 0: there; exit 1: missing; no template: cannot tell', async () => {
    expect(await driver('test {file} = /there').fileExists(member, '/there')).toBe(true);
    expect(await driver('test {file} = /there').fileExists(member, '/elsewhere')).toBe(false);
    expect(await driver(undefined).fileExists(member, '/there')).toBeUndefined();
  });

  it('any other exit (ssh failing with 255) is no answer, not a missing file', async () => {
    await expect(
      driver("echo 'ssh: connect to host 10.0.0.1 port 22: No route to host' >&2; exit 255").fileExists(
        member,
        '/there',
      ),
    ).rejects.toThrow(
      'driver.check for etcd-a did not answer (exit 255): ssh: connect to host 10.0.0.1 port 22: No route to host',
    );
  });
});

describe('flags', () => {
  it('reads --a=b, --a b, -a=b and bare booleans', () => {
    const parsed = parseFlags(['--name=m1', '--data-dir', '/d', '-debug', '--enable-v2', '-log-level=info']);
    expect(parsed).toEqual({
      ok: true,
      flags: [
        { name: 'name', value: 'm1' },
        { name: 'data-dir', value: '/d' },
        { name: 'debug', value: 'true' },
        { name: 'enable-v2', value: 'true' },
        { name: 'log-level', value: 'info' },
      ],
    });
    expect(parseFlags(['--name=m1', 'stray'])).toEqual({
      ok: false,
      index: 1,
      problem: '"stray" is not a flag (--name=value)',
    });
  });

  it('finds the flags 3.5 removed, --logger only with capnslog', () => {
    const flags = (args: string[]) => {
      const parsed = parseFlags(args);
      if (!parsed.ok) throw new Error(parsed.problem);
      return parsed.flags;
    };
    expect(removedFlagsIn(flags(['--logger=zap', '--log-outputs=stderr'])).map((r) => r.flag)).toEqual([]);
    expect(
      removedFlagsIn(flags(['--logger', 'capnslog', '-debug', '--log-output=stderr'])).map((r) => r.flag),
    ).toEqual(['logger', 'log-output', 'debug']);
  });
});
