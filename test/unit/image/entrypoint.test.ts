import { describe, expect, it } from 'vitest';
import { EXPERIMENT_NODE_OPTIONS } from '../../../services/experiment/node-options.ts';
import { commandFor, PROGRAMS, USAGE } from '../../../services/image/entrypoint.ts';

describe("the image's entry point", () => {
  it('runs each program from dist/services with its node options, the arguments after it', () => {
    expect(commandFor(['experiment'], '/app/dist/services')).toEqual({
      kind: 'run',
      args: [...EXPERIMENT_NODE_OPTIONS, '/app/dist/services/experiment/main.js'],
    });
    expect(commandFor(['ratelimit'], '/s')).toEqual({ kind: 'run', args: ['/s/ratelimit/main.js'] });
    expect(commandFor(['replay', 'experiment.observations', '--from-beginning'], '/s')).toEqual({
      kind: 'run',
      args: ['/s/replay/main.js', 'experiment.observations', '--from-beginning'],
    });
  });

  it('loads the default signal actions for kvupgrade only, which installs no handler of its own', () => {
    const kvupgrade = commandFor(['kvupgrade', 'plan', '--cluster', 'c.yaml'], '/s');
    expect(kvupgrade).toEqual({
      kind: 'run',
      args: [
        '--import',
        expect.stringMatching(/default-signals\.js$/),
        '/s/kvupgrade/main.js',
        'plan',
        '--cluster',
        'c.yaml',
      ],
    });
    for (const name of ['experiment', 'ratelimit', 'replay'])
      expect(JSON.stringify(commandFor([name], '/s'))).not.toContain('default-signals');
  });

  it('refuses no program and an unknown one (an inherited property name too), and helps on --help', () => {
    expect(commandFor([], '/s')).toEqual({ kind: 'error', message: 'no program given' });
    expect(commandFor(['nope'], '/s')).toEqual({ kind: 'error', message: 'unknown program "nope"' });
    expect(commandFor(['toString'], '/s')).toEqual({ kind: 'error', message: 'unknown program "toString"' });
    for (const help of ['--help', '-h', 'help']) expect(commandFor([help], '/s')).toEqual({ kind: 'help' });
    for (const name of Object.keys(PROGRAMS)) expect(USAGE).toContain(`  ${name} `);
  });
});
