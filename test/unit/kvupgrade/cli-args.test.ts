import { describe, expect, it } from 'vitest';
import { parseCli } from '../../../services/kvupgrade/cli-args.ts';
import { readKvupgradeSettings } from '../../../services/kvupgrade/settings.ts';

describe('kvupgrade arguments', () => {
  it('reads a command, the cluster file and the switches', () => {
    expect(parseCli(['plan', '--cluster', 'c.yaml'])).toEqual({
      kind: 'run',
      options: { command: 'plan', cluster: 'c.yaml', allowAuth: false, yes: false, output: 'text' },
    });
    expect(parseCli(['rollback', '--cluster=c.yaml', '--yes', '--allow-auth'])).toEqual({
      kind: 'run',
      options: { command: 'rollback', cluster: 'c.yaml', allowAuth: true, yes: true, output: 'text' },
    });
    expect(parseCli(['status', '--cluster', 'c.yaml', '--output', 'json'])).toMatchObject({
      options: { command: 'status', output: 'json' },
    });
    expect(parseCli(['-h'])).toEqual({ kind: 'help' });
  });

  it('names what is wrong', () => {
    expect(parseCli([])).toEqual({
      kind: 'error',
      message: 'a command is required: one of plan, run, status, resume, rollback',
    });
    expect(parseCli(['upgrade', '--cluster', 'c.yaml'])).toEqual({
      kind: 'error',
      message: 'unknown command "upgrade": one of plan, run, status, resume, rollback',
    });
    expect(parseCli(['run'])).toEqual({ kind: 'error', message: '--cluster <file.yaml> is required' });
    expect(parseCli(['run', 'now', '--cluster', 'c.yaml'])).toEqual({
      kind: 'error',
      message: 'unexpected argument "now"',
    });
    const unknown = parseCli(['run', '--cluster', 'c.yaml', '--force']);
    expect(unknown.kind).toBe('error');
    expect((unknown as { message: string }).message).toMatch(/--force/);
    expect(parseCli(['plan', '--cluster', 'c.yaml', '--output=yaml'])).toEqual({
      kind: 'error',
      message: '--output must be text or json, got "yaml"',
    });
    const missingValue = parseCli(['run', '--cluster']);
    expect((missingValue as { message: string }).message).toMatch(/--cluster/);
  });

  it('takes the folder a relative --cluster is read from from INIT_CWD (npm run starts in the project root)', () => {
    expect(readKvupgradeSettings({ INIT_CWD: '/home/sre/etcd' }).invokedFrom).toBe('/home/sre/etcd');
    expect(readKvupgradeSettings({}).invokedFrom).toBe('');
  });
});
